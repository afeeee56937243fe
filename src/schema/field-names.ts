// Table Schema field names for a header (docs/column-types.md): Frictionless readers refuse a schema whose
// names repeat or are empty, so `a,a,a` and `,,` get names made unique here, the way
// Frictionless names such columns itself. The CSV keeps its header as written; every document
// that names fields (the schema, Data Package, Croissant, schema.org, DCAT's summary) uses these. Pure.
function blank(name: string): boolean {
  return name.trim() === "";
}

/**
 * One name per column: a blank cell is `field<n>` (n its 1-based column), a repeat is the name
 * and its count (`a`, `a2`, `a3`), counting on past any name already given. A name written in
 * the header keeps its first column, so a header without blanks or repeats is left as it is.
 */
export function fieldNames(header: readonly string[]): string[] {
  const first = new Map<string, number>();
  header.forEach((name, i) => {
    if (!blank(name) && !first.has(name)) first.set(name, i);
  });
  if (first.size === header.length) return [...header];
  const taken = new Set(first.keys());
  const counts = new Map<string, number>();
  return header.map((name, i) => {
    if (first.get(name) === i) return name;
    const base = blank(name) ? "field" : name;
    const count = (counts.get(name) ?? 1) + 1;
    counts.set(name, count);
    let n = blank(name) ? i + 1 : count;
    while (taken.has(`${base}${n}`)) n++;
    taken.add(`${base}${n}`);
    return `${base}${n}`;
  });
}
