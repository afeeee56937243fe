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
