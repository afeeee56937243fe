// Deleting a dataset (docs/api.md): one D1 batch removes every row of it, so every path of it answers
// 404 from then on, and records each of its objects in the intent log in the same batch. The
// scheduled clean-up deletes the objects once downloads already under way have had time to end
// (READ_GRACE_SECONDS); nothing here deletes from R2 (docs/storage-protocol.md).
import { storageTimingsFrom, limitsFrom } from "../config.ts";
import { deleteDatasetRows } from "./store.ts";

/** Deletes the dataset; false when another request deleted it first. */
export async function deleteDataset(env: { DB: D1Database } & object, datasetId: string): Promise<boolean> {
  const { readGraceMs } = storageTimingsFrom(limitsFrom(env));
  return deleteDatasetRows(env.DB, datasetId, Date.now() + readGraceMs);
}
