// Strong entity tags and conditional GETs (RFC 9110 §8.8.3, §13.1.2).
import { toBase64Url } from "../wire/bytes.ts";

/** A strong ETag from the representation's bytes. */
export async function etagOf(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return `"${toBase64Url(digest.subarray(0, 18))}"`;
}

/** RFC 9110 §13.1.2: If-None-Match matches with the weak comparison; `*` matches anything. */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  return header.split(",").some((candidate) => opaque(candidate) === opaque(etag));
}

/** The 304 for a matching conditional GET keeps the validators and caching headers only. */
export function notModified(response: Response): Response {
  const headers = new Headers();
  for (const name of ["ETag", "Cache-Control", "Vary", "Content-Location", "Access-Control-Allow-Origin", "Access-Control-Expose-Headers"]) {
    const value = response.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  return new Response(null, { status: 304, headers });
}
