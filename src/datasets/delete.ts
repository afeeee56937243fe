// Deleting a dataset (SPEC C): the D1 batch removes every row at once, so every path of it
// answers 404 from then on; its R2 objects go right after. An object a failure leaves behind
// belongs to no dataset row and is removed by the scheduled clean-up.
import { deleteDatasetRows } from "../storage/delete-db.ts";
import { datasetPrefix, deleteObjects } from "../storage/segment-store.ts";

/** Deletes every object under the dataset's prefix (R2 lists at most 1000 keys a page). */
async function deleteDatasetObjects(bucket: R2Bucket, datasetId: string): Promise<void> {
  let cursor: string | undefined;
  for (;;) {
    const page = await bucket.list({ prefix: datasetPrefix(datasetId), cursor });
    if (page.objects.length > 0) await deleteObjects(bucket, page.objects.map((o) => o.key));
    if (!page.truncated) return;
    cursor = page.cursor;
  }
}

/** Deletes the dataset; false when another request deleted it first. */
export async function deleteDataset(env: { DB: D1Database; CONTENT: R2Bucket }, datasetId: string): Promise<boolean> {
  if (!(await deleteDatasetRows(env.DB, datasetId))) return false;
  try {
    await deleteDatasetObjects(env.CONTENT, datasetId);
  } catch (error: unknown) {
    console.error("dataset objects left for the scheduled clean-up", datasetId, error);
  }
  return true;
}
