// Opaque keyset cursors for lists (SPEC B5): the position of the last item returned, encoded
// so clients treat it as a token, and a `Link: rel="next"` header that carries it.
import { ApiError } from "../errors.ts";

export interface Position {
  created: string;
  id: string;
}

function toBase64Url(text: string): string {
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function encodeCursor(position: Position): string {
  return toBase64Url(JSON.stringify([position.created, position.id]));
}

export function decodeCursor(cursor: string): Position {
  try {
    const padded = cursor.replace(/-/g, "+").replace(/_/g, "/");
    const value: unknown = JSON.parse(atob(padded));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === "string" && typeof value[1] === "string") {
      return { created: value[0], id: value[1] };
    }
  } catch {
    // fall through to the problem below
  }
  throw new ApiError("invalid_query", "The cursor is not one this API issued.");
}

/** The URL of the next page: the request's own URL with `cursor` replaced. */
export function nextLink(requestUrl: string, cursor: string): string {
  const url = new URL(requestUrl);
  url.searchParams.set("cursor", cursor);
  return `<${url.pathname}${url.search}>; rel="next"`;
}
