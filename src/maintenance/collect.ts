// Deletes the R2 objects that the intent log says nothing needs any more (docs/storage-protocol.md):
// uploads no commit claimed, runs a compaction replaced, segments of deleted datasets. The
// only place that deletes content objects. It reads the log, never a bucket listing, so its
// cost follows what was written since the last run, not what is stored.
import { duePendingObjects, finishCollecting, startCollecting } from "../storage/pending-objects-db.ts";
import { deleteObjects } from "../storage/segment-store.ts";
import type { ContentBindings } from "./compaction.ts";

const PAGE_SIZE = 500;
/** Bounds one run's subrequests; the next run takes the rest. */
const MAX_PAGES = 20;

export interface CollectSummary {
  checked: number;
  deleted: number;
}

/**
 * For each due row: unreferenced → marked `collecting` (no commit can claim it from then on),
 * deleted from R2, then its rows removed; referenced → its row forgotten. A failure between
 * the steps leaves a `collecting` row that the next run finishes (deleting an absent object is
 * a no-op).
 */
export async function collectPendingObjects(env: ContentBindings, now: number): Promise<CollectSummary> {
  const summary: CollectSummary = { checked: 0, deleted: 0 };
  for (let page = 0; page < MAX_PAGES; page++) {
    const due = await duePendingObjects(env.DB, now, PAGE_SIZE);
    if (due.length === 0) break;
    summary.checked += due.length;
    // Rows a failed earlier run left `collecting` are unreferenced too, so they come back here.
    const collecting = await startCollecting(env.DB, due);
    await deleteObjects(env.CONTENT, collecting);
    await finishCollecting(env.DB, collecting);
    summary.deleted += collecting.length;
    if (due.length < PAGE_SIZE) break;
  }
  return summary;
}
