// Whether a client accepts a gzip-encoded response (RFC 9110 §12.5.3), so stored gzip can be
// passed through instead of inflated.

export function acceptsGzip(header: string | undefined | null): boolean {
  if (!header) return false;
  return header.split(",").some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return (coding === "gzip" || coding === "x-gzip") && (q === undefined || Number(q.slice(2)) > 0);
  });
}

/**
 * The client's own Accept-Encoding: on Cloudflare (and in workerd) the header a worker sees is
 * rewritten to what the edge accepts, and the client's value is in `cf.clientAcceptEncoding`.
 */
export function clientAcceptEncoding(request: Request): string | null {
  const cf = (request as { cf?: { clientAcceptEncoding?: unknown } }).cf;
  if (typeof cf?.clientAcceptEncoding === "string") return cf.clientAcceptEncoding;
  return request.headers.get("accept-encoding");
}
