// Finds and deletes content no committed version can reach (SPEC B7): R2 objects without a
// segment row of a live dataset (failed writes, lost compactions, deleted datasets), and
// segment rows that compaction left unreferenced. Only what is older than the cutoff goes.
import { deleteUnreferencedSegments, liveSegmentKeys, unreferencedSegmentKeys } from "../storage/maintenance-db.ts";
import { SEGMENT_PREFIX, deleteObjects } from "../storage/segment-store.ts";
import type { ContentBindings } from "./compaction.ts";

const PAGE_SIZE = 1000;

/**
 * Lists every object under `datasets/` and deletes those uploaded before `cutoff` that no
 * live segment row names. An object is written before the D1 commit that names it, so a
 * young one may belong to a write still in flight and is kept.
 */
export async function deleteOrphanObjects(env: ContentBindings, cutoff: Date): Promise<{ scanned: number; deleted: number }> {
  let scanned = 0;
  let deleted = 0;
  let cursor: string | undefined;
  do {
    const page = await env.CONTENT.list({ prefix: SEGMENT_PREFIX, limit: PAGE_SIZE, cursor });
    scanned += page.objects.length;
    const old = page.objects.filter((o) => o.uploaded.getTime() < cutoff.getTime()).map((o) => o.key);
    const live = await liveSegmentKeys(env.DB, old);
    const orphans = old.filter((key) => !live.has(key));
    await deleteObjects(env.CONTENT, orphans);
    deleted += orphans.length;
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor !== undefined);
  return { scanned, deleted };
}

/**
 * Deletes segment rows no version references (older than `cutoff`), then their objects. The
 * row goes first: if deleting the object fails, it is a plain orphan the next run removes.
 */
export async function deleteUnreferencedSegmentRows(env: ContentBindings, cutoff: Date): Promise<number> {
  let deleted = 0;
  let after = "";
  for (;;) {
    const keys = await unreferencedSegmentKeys(env.DB, cutoff.toISOString(), after, PAGE_SIZE);
    const last = keys[keys.length - 1];
    if (last === undefined) return deleted;
    const gone = await deleteUnreferencedSegments(env.DB, keys);
    await deleteObjects(env.CONTENT, gone);
    deleted += gone.length;
    after = last;
  }
}
