// Deleting a dataset from D1 (docs/api.md, `DELETE /v1/dataset/:id`): every row of it in one batch
// (a transaction), children before parents so foreign keys hold at each statement. Its R2
// objects are recorded in the intent log first, for the scheduled clean-up to delete.
import { recordDatasetObjectsStatement } from "../storage/pending-objects-db.ts";
import { unindexStatements } from "../storage/search-db.ts";
import { deleteDatasetPartsStatement } from "../storage/segment-parts-db.ts";

/** Deletes the dataset and everything of it; false when there was no such dataset. */
export async function deleteDatasetRows(db: D1Database, datasetId: string, collectObjectsAfter: number): Promise<boolean> {
  const results = await db.batch([
    recordDatasetObjectsStatement(db, datasetId, collectObjectsAfter),
    db
      .prepare("DELETE FROM version_segments WHERE version_id IN (SELECT id FROM versions WHERE dataset_id = ?)")
      .bind(datasetId),
    deleteDatasetPartsStatement(db, datasetId),
    db.prepare("DELETE FROM segments WHERE dataset_id = ?").bind(datasetId),
    db.prepare("DELETE FROM versions WHERE dataset_id = ?").bind(datasetId),
    ...unindexStatements(db, datasetId),
    db.prepare("DELETE FROM datasets WHERE id = ?").bind(datasetId),
  ]);
  const last = results[results.length - 1];
  return (last?.meta.changes ?? 0) > 0;
}
