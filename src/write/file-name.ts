// The stored file name (docs/api.md#writes): base name only, unsafe characters replaced, bounded length,
// `.csv` added when there is no extension or when the name is a version's reserved path. The
// `.gz` of a client-compressed upload is dropped: it names the transfer encoding, not the content.
import { MAX_FILE_NAME_LENGTH } from "../config.ts";

export const DEFAULT_FILE_NAME = "dataset.csv";

/**
 * The paths beside a version's file (`/v1/dataset/:id/:version/<name>`) that are not its file:
 * the rows (as JSON and as a CSV query export) and the metadata documents (docs/api.md, docs/column-types.md). They win over a stored name, so a stored
 * name never takes one: an upload called `datapackage.json` is stored as `datapackage.json.csv`.
 */
export const RESERVED_VERSION_PATHS: ReadonlySet<string> = new Set(["rows", "rows.csv", "schema", "statistics", "datapackage.json", "croissant.jsonld"]);
const MAX_EXTENSION_LENGTH = 16;

export function sanitizeFileName(sent: string | null, compressed: boolean): string {
  if (sent === null) return DEFAULT_FILE_NAME;
  let base = sent.split(/[\\/]/).pop() ?? "";
  if (compressed && /\.gz$/i.test(base)) base = base.slice(0, -3);
  base = base.replace(/[^A-Za-z0-9._-]/g, "_");
  if (base === "" || /^\.+$/.test(base)) return DEFAULT_FILE_NAME;
  if (!/\.[A-Za-z0-9]+$/.test(base)) base += ".csv";
  if (base.length > MAX_FILE_NAME_LENGTH) {
    // Keep a short extension (`.csv`, `.tsv`); a long "extension" is just more of the name.
    const dot = base.lastIndexOf(".");
    const extension = dot > 0 && base.length - dot <= MAX_EXTENSION_LENGTH ? base.slice(dot) : "";
    base = base.slice(0, MAX_FILE_NAME_LENGTH - extension.length) + extension;
  }
  return RESERVED_VERSION_PATHS.has(base) ? `${base}.csv` : base;
}
