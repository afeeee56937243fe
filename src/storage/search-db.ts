// D1 FTS5 index behind `GET /v1/dataset?q=` (docs/api.md): one row per dataset holding its latest
// version's name, description, key_words and contact_name (migrations/0003_search.sql).
// Rows are written inside the commit batch, so the index moves with the latest version.
import { listFilter, toListRow, type ListFilter, type ListRecord, type ListRow } from "./dataset-lists-db.ts";

/** Column weights for bm25, in table order: a name match outranks a description-only one. */
const WEIGHTS = { name: 10, description: 2, keyWords: 5, contactName: 3 } as const;

export interface SearchFields {
  name: string;
  description: string;
  keyWords: string;
  contactName: string;
}

/** What of a version is searchable; unknown property types index as nothing. */
export function searchFields(name: string, properties: Record<string, unknown>): SearchFields {
  const text = (value: unknown) => (typeof value === "string" ? value.normalize("NFC") : "");
  const keyWords = Array.isArray(properties.key_words) ? properties.key_words.map(text).join(" ") : "";
  return { name: text(name), description: text(properties.description), keyWords, contactName: text(properties.contact_name) };
}

/** Replaces a dataset's search row; goes in the same batch as the version it describes. */
export function indexStatements(db: D1Database, datasetId: string, fields: SearchFields): D1PreparedStatement[] {
  return [
    db.prepare("INSERT INTO search_docs (dataset_id) VALUES (?) ON CONFLICT (dataset_id) DO NOTHING").bind(datasetId),
    db.prepare("DELETE FROM dataset_search WHERE rowid = (SELECT doc FROM search_docs WHERE dataset_id = ?)").bind(datasetId),
    db
      .prepare(
        `INSERT INTO dataset_search (rowid, name, description, key_words, contact_name)
         SELECT doc, ?, ?, ?, ? FROM search_docs WHERE dataset_id = ?`,
      )
      .bind(fields.name, fields.description, fields.keyWords, fields.contactName, datasetId),
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
    ORDER BY bm25(dataset_search, ${w.name}, ${w.description}, ${w.keyWords}, ${w.contactName}), d.created DESC, d.id DESC
    LIMIT ? OFFSET ?`;
  const { results } = await db
    .prepare(sql)
    .bind(query.match, ...filter.params, query.limit, query.offset)
    .all<ListRecord>();
  return results.map(toListRow);
}
