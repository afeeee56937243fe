// How the catalog prints numbers, sizes, dates and names, and the links between its pages:
// one place, so every page says the same thing the same way.

export interface KnownProperties {
  description: string;
  keyWords: string[];
  contactName: string;
}

/** The known keys of `properties`; a value of the wrong type reads as absent. */
export function knownProperties(properties: Record<string, unknown>): KnownProperties {
  const text = (value: unknown) => (typeof value === "string" ? value.trim() : "");
  const words = Array.isArray(properties.key_words) ? properties.key_words.map(text).filter((w) => w !== "") : [];
  return { description: text(properties.description), keyWords: words, contactName: text(properties.contact_name) };
}

/** `2026-11-22T10:00:00.000Z` → `2026-11-22 10:00 UTC`. */
export function formatDate(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]} UTC` : iso;
}

const UNITS = ["bytes", "kB", "MB", "GB", "TB"] as const;

/** Decimal units, as download managers and file browsers show them. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  if (unit === 0) return bytes === 1 ? "1 byte" : `${bytes} bytes`;
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${UNITS[unit]}`;
}

export function formatCount(n: number, one: string, many: string): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

/** At most `max` characters counting the ellipsis, cut at a word boundary when one is near. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const cut = chars.slice(0, max - 1).join("");
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

export interface HomeLink {
  q?: string;
  team?: string;
  owner?: string;
  cursor?: string;
}

/** The home page with these filters; empty values are left out. */
export function homeHref(query: HomeLink): string {
  const params = new URLSearchParams();
  for (const name of ["q", "team", "owner", "cursor"] as const) {
    const value = query[name];
    if (value) params.set(name, value);
  }
  const search = params.toString();
  return search === "" ? "/" : `/?${search}`;
}

/** A dataset's page; with a history cursor, that page of its versions. */
export function datasetHref(id: string, versionsCursor?: string): string {
  return versionsCursor === undefined ? `/datasets/${id}` : `/datasets/${id}?${new URLSearchParams({ versions: versionsCursor })}`;
}

/** The plain-CSV download of a version (its `source` without `.gz`). */
export function csvPath(datasetId: string, versionId: string, fileName: string): string {
  return `/v1/dataset/${datasetId}/${versionId}/${fileName}`;
}
