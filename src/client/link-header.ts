// RFC 8288 Link header: the `rel="next"` target lists and version lists paginate with (docs/api.md#lists),
// and the `rel="enclosure"` a record points at its content with.

const LINK = /<([^>]*)>((?:\s*;\s*[^;,]*)*)/g;
const REL = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i;

/** The target of the first link whose relation types include `relation`, or null. */
export function linkTarget(header: string | null, relation: string): string | null {
  if (header === null) return null;
  for (const match of header.matchAll(LINK)) {
    const rel = REL.exec(match[2] ?? "");
    const types = (rel?.[1] ?? rel?.[2] ?? "").toLowerCase().split(/\s+/);
    if (types.includes(relation)) return match[1] ?? null;
  }
  return null;
}

export function nextLinkTarget(header: string | null): string | null {
  return linkTarget(header, "next");
}
