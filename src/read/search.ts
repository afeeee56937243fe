// Search over the catalog (docs/api.md, `GET /v1/dataset?q=`): turns the user's words into an FTS5
// query that cannot carry FTS5 syntax, and pages ranked results with an offset cursor.
import { ApiError } from "../model/errors.ts";
import { decodeSearchCursor, encodeSearchCursor } from "./search-cursor.ts";
import type { ListFilter, ListRow } from "../storage/dataset-lists-db.ts";
import { searchDatasets } from "../storage/search-db.ts";

/** A word: a letter or digit, then letters, digits and combining marks (what unicode61 indexes). */
const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;

/**
 * Every term of `q` (what spaces separate) as a quoted phrase of its words, all required (AND),
 * the last one also as a prefix (`"zur"*` finds Zürich while the user is still typing). Words
 * joined without a space stay one phrase, so `zip_code` finds the column `zip_code` (indexed as
 * the words "zip" and "code" in a row) and not a dataset that says "zip" in one place and "code"
 * in another. Only letters, digits, marks and spaces end up between the quotes, so operators,
 * quotes, `*`, `NEAR(`, `-` and `:` in `q` are inert.
 */
export function toFtsQuery(q: string): string {
  const phrases = q
    .normalize("NFC")
    .split(/\s+/u)
    .map((term) => (term.match(WORD) ?? []).join(" "))
    .filter((phrase) => phrase !== "");
  if (phrases.length === 0) throw new ApiError("invalid_query", "q: must contain at least one letter or digit.");
  return phrases.map((phrase, i) => `"${phrase}"${i === phrases.length - 1 ? "*" : ""}`).join(" AND ");
}

export interface SearchPage {
  rows: ListRow[];
  nextCursor: string | null;
}

export async function searchPage(db: D1Database, filter: ListFilter, q: string, cursor: string | undefined, limit: number): Promise<SearchPage> {
  const match = toFtsQuery(q);
  const offset = cursor !== undefined ? decodeSearchCursor(cursor) : 0;
  const rows = await searchDatasets(db, { ...filter, match, offset, limit: limit + 1 });
  const more = rows.length > limit;
  return { rows: rows.slice(0, limit), nextCursor: more ? encodeSearchCursor(offset + limit) : null };
}
