// The R2 objects one write uploads, each recorded in the intent log before its first byte
// (docs/storage-protocol.md), so an object no commit claims is collected later and never deleted
// inline: after an ambiguous D1 error an inline delete could remove what a committed version uses.
import { compressSegment } from "../../wire/deflate-segment.ts";
import { recordUploadIntents } from "../../storage/pending-objects-db.ts";
import { newSegmentKey, putSegment } from "../../storage/segment-store.ts";
import type { LineBreakSource } from "./version-content.ts";
import type { StorageTimings } from "../../config.ts";

export class UploadedObjects {
  private readonly env: { DB: D1Database; CONTENT: R2Bucket };
  private readonly datasetId: string;
  private readonly timings: StorageTimings;
  private lineBreaks = new Map<string, Awaited<ReturnType<LineBreakSource>>>();

  constructor(env: { DB: D1Database; CONTENT: R2Bucket }, datasetId: string, timings: StorageTimings) {
    this.env = env;
    this.datasetId = datasetId;
    this.timings = timings;
  }

  /**
   * A fresh object key, recorded as an unclaimed upload; collectable after the write grace, or
   * after `collectAfter` (a resumable upload's chunk lives as long as its upload).
   */
  async reserve(collectAfter = Date.now() + this.timings.writeGraceMs): Promise<string> {
    const key = newSegmentKey(this.datasetId);
    await recordUploadIntents(this.env.DB, this.datasetId, [key], collectAfter);
    return key;
  }

  /** A one-line-break segment, uploaded once per write and line-end style. */
  readonly lineBreak: LineBreakSource = async (eol) => {
    const known = this.lineBreaks.get(eol);
    if (known) return known;
    const compressed = compressSegment(new TextEncoder().encode(eol), 1);
    const key = await this.reserve();
    await putSegment(this.env.CONTENT, key, compressed.data);
    const made = { segment: { key, compressedBytes: compressed.compressedBytes, rawBytes: compressed.rawBytes, rowCount: 0 }, crc: compressed.crc };
    this.lineBreaks.set(eol, made);
    return made;
  };
}
