// D1 access for `segment_parts` (docs/storage-layout.md): each segment's part list, written in
// the same batch as its segment row and read back to let the rows endpoint find one part.
// A segment with no part rows (written before parts existed) is one part: the whole object.
import type { SegmentPart } from "../wire/parted-segment.ts";
import type { SegmentRow } from "../model/dataset.ts";

/**
 * One statement inserting all of `parts` for `key`, bound as one JSON array so any number of
 * parts stays within D1's 100-parameter limit. It inserts nothing unless the segment row
 * exists, so it can follow a guarded segment insert in the same batch.
 */
export function insertPartsStatement(db: D1Database, key: string, parts: readonly SegmentPart[]): D1PreparedStatement {
  const rows = parts.map((p) => [p.compressedOffset, p.compressedBytes, p.rawBytes, p.rowCount]);
  return db
    .prepare(
      `INSERT INTO segment_parts (segment_key, part, compressed_offset, compressed_bytes, raw_bytes, row_count)
       SELECT ?1, j.key, json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'),
              json_extract(j.value, '$[2]'), json_extract(j.value, '$[3]')
       FROM json_each(?2) j
       WHERE EXISTS (SELECT 1 FROM segments WHERE key = ?1)`,
    )
    .bind(key, JSON.stringify(rows));
}

/** Deletes the part rows of every segment of a dataset. */
export function deleteDatasetPartsStatement(db: D1Database, datasetId: string): D1PreparedStatement {
  return db
    .prepare("DELETE FROM segment_parts WHERE segment_key IN (SELECT key FROM segments WHERE dataset_id = ?)")
    .bind(datasetId);
}

/** The segment's parts as stored, or one part spanning the whole object when none are. */
export function partsOf(segment: SegmentRow): SegmentPart[] {
  if (segment.parts && segment.parts.length > 0) return segment.parts;
  return [{ compressedOffset: 0, compressedBytes: segment.compressedBytes, rawBytes: segment.rawBytes, rowCount: segment.rowCount }];
}

/** A part row as `segment_parts` stores it. */
export interface PartRecord {
  segment_key: string;
  compressed_offset: number;
  compressed_bytes: number;
  raw_bytes: number;
  row_count: number;
}

/** Part rows, ordered by segment and part, grouped into each segment's list. */
export function partsByKey(rows: readonly PartRecord[]): Map<string, SegmentPart[]> {
  const byKey = new Map<string, SegmentPart[]>();
  for (const r of rows) {
    const list = byKey.get(r.segment_key) ?? [];
    list.push({ compressedOffset: r.compressed_offset, compressedBytes: r.compressed_bytes, rawBytes: r.raw_bytes, rowCount: r.row_count });
    byKey.set(r.segment_key, list);
  }
  return byKey;
}

/** The stored part lists of a version's segments, by segment key (none for older segments). */
export async function getVersionParts(db: D1Database, versionId: string): Promise<Map<string, SegmentPart[]>> {
  const { results } = await db
    .prepare(
      `SELECT p.segment_key, p.compressed_offset, p.compressed_bytes, p.raw_bytes, p.row_count
       FROM segment_parts p
       WHERE p.segment_key IN (SELECT segment_key FROM version_segments WHERE version_id = ?1)
       ORDER BY p.segment_key, p.part`,
    )
    .bind(versionId)
    .all<PartRecord>();
  return partsByKey(results);
}
