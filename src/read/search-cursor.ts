// Cursors for search results (`GET /v1/dataset?q=`). Rank order has no keyset position, so a
// search cursor carries an offset; pages may shift when the catalog changes between them.
import { ApiError } from "../model/errors.ts";

function toBase64Url(text: string): string {
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function encodeSearchCursor(offset: number): string {
  return toBase64Url(JSON.stringify({ offset }));
}

/** The offset a search cursor carries; a list cursor or anything else is 400 invalid_query. */
export function decodeSearchCursor(cursor: string): number {
  try {
    const value: unknown = JSON.parse(atob(cursor.replace(/-/g, "+").replace(/_/g, "/")));
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const offset: unknown = (value as Record<string, unknown>).offset;
      if (typeof offset === "number" && Number.isSafeInteger(offset) && offset >= 0) return offset;
    }
  } catch {
    // fall through to the problem below
  }
  throw new ApiError("invalid_query", "The cursor is not one this API issued for a search.");
}
