// RFC 8288 Link header: the `rel="next"` target lists and version lists paginate with (SPEC B5).

const LINK = /<([^>]*)>((?:\s*;\s*[^;,]*)*)/g;
const REL = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i;

/** The target of the first link whose relation types include `next`, or null. */
export function nextLinkTarget(header: string | null): string | null {
  if (header === null) return null;
  for (const match of header.matchAll(LINK)) {
    const rel = REL.exec(match[2] ?? "");
    const types = (rel?.[1] ?? rel?.[2] ?? "").toLowerCase().split(/\s+/);
    if (types.includes("next")) return match[1] ?? null;
  }
  return null;
}
