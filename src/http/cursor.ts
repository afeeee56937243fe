// Opaque keyset cursors for lists (docs/api.md#lists): the position of the last item returned, encoded
// so clients treat it as a token, and a `Link: rel="next"` header that carries it. Dataset
// lists key on (created, id); version lists on the version's sequence number.
import { ApiError } from "../model/errors.ts";

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

function fromBase64Url(cursor: string): unknown {
  try {
    return JSON.parse(atob(cursor.replace(/-/g, "+").replace(/_/g, "/")));
  } catch {
    return undefined;
  }
}

function foreignCursor(): ApiError {
  return new ApiError("invalid_query", "The cursor is not one this API issued.");
}

export function decodeCursor(cursor: string): Position {
  const value = fromBase64Url(cursor);
  if (Array.isArray(value) && value.length === 2 && typeof value[0] === "string" && typeof value[1] === "string") {
    return { created: value[0], id: value[1] };
  }
  throw foreignCursor();
}

/** A version list's position: the `seq` of the last version returned. */
export function encodeSeqCursor(seq: number): string {
  return toBase64Url(JSON.stringify([seq]));
}

export function decodeSeqCursor(cursor: string): number {
  const value = fromBase64Url(cursor);
  const seq: unknown = Array.isArray(value) && value.length === 1 ? value[0] : undefined;
  if (typeof seq === "number" && Number.isSafeInteger(seq) && seq > 0) return seq;
  throw foreignCursor();
}

/** The URL of the next page: the request's own URL with `cursor` replaced. */
export function nextLink(requestUrl: string, cursor: string): string {
  const url = new URL(requestUrl);
  url.searchParams.set("cursor", cursor);
  return `<${url.pathname}${url.search}>; rel="next"`;
}

/** A change feed position (docs/changes.md): the `seq` of the last event returned; 0 is the start. */
export function encodeChangeCursor(seq: number): string {
  return toBase64Url(JSON.stringify(["changes", seq]));
}

export function decodeChangeCursor(cursor: string): number {
  const value = fromBase64Url(cursor);
  const seq: unknown = Array.isArray(value) && value.length === 2 && value[0] === "changes" ? value[1] : undefined;
  if (typeof seq === "number" && Number.isSafeInteger(seq) && seq >= 0) return seq;
  throw foreignCursor();
}

/** The URL of the feed's next request: the request's own URL with `since` replaced. */
export function nextSinceLink(requestUrl: string, cursor: string): string {
  const url = new URL(requestUrl);
  url.searchParams.set("since", cursor);
  return `<${url.pathname}${url.search}>; rel="next"`;
}
