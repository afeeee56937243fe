// D1 FTS5 index behind `GET /v1/dataset?q=` (docs/api.md#search): one row per dataset holding its
// latest version's name, description, key_words, contact_name and columns (their names, and the
// title and description its Table Schema declares; migrations/0003_search.sql, 0021).
// Rows are written inside the commit batch, so the index moves with the latest version.
import type { TableSchema } from "../schema/table-schema.ts";
import { listFilter, toListRow, type ListFilter, type ListRecord, type ListRow } from "./dataset-lists-db.ts";

/** Column weights for bm25, in table order: a name match outranks a description-only one. */
const WEIGHTS = { name: 10, description: 2, keyWords: 5, contactName: 3, columns: 3 } as const;

export interface SearchFields {
  name: string;
  description: string;
  keyWords: string;
  contactName: string;
  /** Header names and schema field names, titles and descriptions, one line each. */
  columns: string;
}

/** What of a version's columns is searchable: each distinct name, title and description once. */
function columnText(columns: readonly string[], schema: TableSchema): string {
  const texts = new Set<string>(columns);
  for (const field of schema.fields) for (const text of [field.name, field.title, field.description]) if (text) texts.add(text);
  return [...texts].join("\n");
}

/** What of a version is searchable; unknown property types index as nothing. */
export function searchFields(version: { name: string; properties: Record<string, unknown>; columns: readonly string[]; schema: TableSchema }): SearchFields {
  const text = (value: unknown) => (typeof value === "string" ? value.normalize("NFC") : "");
  const { properties } = version;
  const keyWords = Array.isArray(properties.key_words) ? properties.key_words.map(text).join(" ") : "";
  return {
    name: text(version.name),
    description: text(properties.description),
    keyWords,
    contactName: text(properties.contact_name),
    columns: columnText(version.columns, version.schema).normalize("NFC"),
  };
}

/** True when `b` would index differently from `a`: the commit then rewrites the dataset's row. */
export function searchFieldsDiffer(a: SearchFields, b: SearchFields): boolean {
  return a.name !== b.name || a.description !== b.description || a.keyWords !== b.keyWords || a.contactName !== b.contactName || a.columns !== b.columns;
}

/** Replaces a dataset's search row; goes in the same batch as the version it describes. */
export function indexStatements(db: D1Database, datasetId: string, fields: SearchFields): D1PreparedStatement[] {
  return [
    db.prepare("INSERT INTO search_docs (dataset_id) VALUES (?) ON CONFLICT (dataset_id) DO NOTHING").bind(datasetId),
    db.prepare("DELETE FROM dataset_search WHERE rowid = (SELECT doc FROM search_docs WHERE dataset_id = ?)").bind(datasetId),
    db
      .prepare(
        `INSERT INTO dataset_search (rowid, name, description, key_words, contact_name, columns)
         SELECT doc, ?, ?, ?, ?, ? FROM search_docs WHERE dataset_id = ?`,
      )
      .bind(fields.name, fields.description, fields.keyWords, fields.contactName, fields.columns, datasetId),
  ];
}

/** Removes a dataset's search row; runs before the dataset row is deleted (foreign key). */
export function unindexStatements(db: D1Database, datasetId: string): D1PreparedStatement[] {
  return [
    db.prepare("DELETE FROM dataset_search WHERE rowid = (SELECT doc FROM search_docs WHERE dataset_id = ?)").bind(datasetId),
    db.prepare("DELETE FROM search_docs WHERE dataset_id = ?").bind(datasetId),
  ];
}

export interface SearchQuery extends ListFilter {
  /** An FTS5 query built by `toFtsQuery`, never raw user input. */
  match: string;
  offset: number;
  limit: number;
}

/** Matches visible to the caller, best first (bm25), then newest dataset, then id. */
export async function searchDatasets(db: D1Database, query: SearchQuery): Promise<ListRow[]> {
  const filter = listFilter(query);
  const w = WEIGHTS;
  const sql = `SELECT d.id, d.name, d.latest_version AS version, d.owner_id AS owner, d.team_id AS team, d.visibility,
      v.created, v.properties, d.created AS dataset_created
    FROM dataset_search
      JOIN search_docs s ON s.doc = dataset_search.rowid
      JOIN datasets d ON d.id = s.dataset_id
      JOIN version_records v ON v.id = d.latest_version
    WHERE dataset_search MATCH ? AND ${filter.where.join(" AND ")}
    ORDER BY bm25(dataset_search, ${w.name}, ${w.description}, ${w.keyWords}, ${w.contactName}, ${w.columns}), d.created DESC, d.id DESC
    LIMIT ? OFFSET ?`;
  const { results } = await db
    .prepare(sql)
    .bind(query.match, ...filter.params, query.limit, query.offset)
    .all<ListRecord>();
  return results.map(toListRow);
}
