// Builds a version's Parquet twin after its commit (docs/storage-protocol.md "The Parquet twin",
// docs/columnar.md): one part per segment, reused when the segment already has one under the
// same encoding (so an append encodes only its own rows), then the version's tail made from the
// parts' metadata alone (for its length; stored only when large), then one D1 batch that
// publishes it. The one writer of twins.
//
//   build(version):
//     kinds ← the parent twin's kinds under the same schema, else the schema's narrowest
//     repeat: encoding ← hash(schema, kinds)
//       for each segment: part(segment, encoding) exists → reuse; its metadata read → tail
//                         else intent(part) → encode, row groups to R2 as cut; then, while the
//                           next segment encodes: R2 put(metadata), complete, record the part
//                           row, its metadata → tail (one part behind at most)
//       a part needs wider kinds, or planKinds says some must be re-encoded → kinds ← wider; again
//     tail ← the TailWriter fed one part's metadata at a time; only past STORED_TAIL_BYTES: intent(tail) → R2 put(tail)
//     batch: the version's part list, its twin row `ready` with the tail's length, intents claimed
//
// Nothing version-wide is written below STORED_TAIL_BYTES: each part holds its rows' summary,
// the version's statistics are merged from its parts' when read (statistics-object.ts), and its
// Parquet tail is made from the parts' metadata when read (tail-object.ts), so an append's build
// writes only its new parts.
//
// Invariants: nothing is published until every part (and a stored tail) is in R2 and the parts
// agree on kinds, so a reader sees no file or a whole one (a tail made on read comes to the
// published length or the read fails); objects are recorded as intents before they are
// written, so a build that dies leaves nothing the clean-up cannot find; a build is safe twice
// or concurrently (parts are keyed by segment and encoding, the publish is one batch).
import { encodePartMetadata, PartWriter, startKinds, TailWriter, unifyKinds, type ColumnKind, type PartMetadata } from "./parquet/index.ts";
import { readStoredPartMetadata, readTwinRange } from "./part-metadata-read.ts";
import { findParts, getTwinState, publishTwin, recordPart, type StoredPart, type TwinState } from "./store.ts";
import { columnFeeds } from "./statistics/column-feed.ts";
import { createSummaries, distinctPast, encodeSummary, skipDistinctKeys, summaryFormat, textKeysOf } from "./statistics/table-summary.ts";
import type { TextKeys } from "./statistics/string-column.ts";
import { segmentCells } from "./segment-rows.ts";
import { getVersionContent } from "../read/store.ts";
import { recordUploadIntents } from "../storage/pending-objects-db.ts";
import { SegmentUpload } from "../storage/segment-store.ts";
import type { StorageTimings } from "../config.ts";
import type { SegmentRow } from "../model/dataset.ts";
import type { TableSchema } from "../schema/table-schema.ts";

export interface TwinBindings {
  DB: D1Database;
  CONTENT: R2Bucket;
}

export type BuildOutcome = "built" | "unchanged" | "gone";

/**
 * A tail longer than this is stored at the build (many columns × many row groups: 4,000 columns
 * of 50 parts make about 20 MB); a shorter one is made from the parts' metadata when read.
 */
export const STORED_TAIL_BYTES = 1024 * 1024;

/**
 * A long build gives the isolate a timer turn this often: awaiting R2 alone resumes it without
 * one, so events that wait for a turn, the inspector's messages among them (the bench's live
 * memory readings, docs/performance.md), were answered about once a minute during a build.
 */
const TURN_EVERY_MS = 100;

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Widening can repeat only as often as a kind can widen (int64 → decimal → string). */
const MAX_ROUNDS = 4;

export function parquetKey(datasetId: string): string {
  return `datasets/${datasetId}/parquet/${crypto.randomUUID()}`;
}

async function encodingOf(schema: TableSchema, kinds: readonly ColumnKind[]): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify([schema, kinds])));
  return [...new Uint8Array(digest).slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export async function buildTwin(env: TwinBindings, datasetId: string, versionId: string, timings: StorageTimings): Promise<BuildOutcome> {
  const started = Date.now();
  const content = await getVersionContent(env.DB, datasetId, versionId, true);
  const version = content.version;
  if (!content.dataset || !version) return "gone";
  const segments = content.segments;
  const current = await getTwinState(env.DB, versionId);
  if (current?.state === "ready" && sameList(current.parts.map((p) => p.segmentKey), segments.map((s) => s.key))) return "unchanged";
  const parent = version.parentId === null ? null : await getTwinState(env.DB, version.parentId);
  let kinds = await startingKinds(parent, version.schema);
  /** Bytes the build put to R2, every round's parts and the tail: what the bench sums per appended byte. */
  let writtenBytes = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const encoding = await encodingOf(version.schema, kinds);
    const existing = await findParts(env.DB, segments.map((s) => s.key), encoding);
    const parts: StoredPart[] = [];
    let wider: ColumnKind[] | null = null;
    // New parts key texts as the reused ones do, so the version's summaries merge exactly.
    const keys = segments.every((s) => existing.has(s.key)) ? "utf8" : await textKeysOfParts(env.CONTENT, [...existing.values()]);
    // The tail is made here for its length, one part's metadata at a time as the parts come (a
    // reader's first request makes it again from the same parts, tail-object.ts); only a tail
    // too large to make on a read is stored.
    const tail = new TailWriter(version.schema);
    // Columns whose distinct count the parts encoded so far put past the exact limit: later parts
    // keep no distinct keys for them (docs/statistics.md, "Distinct keys past the table").
    const past: boolean[] = [];
    // A new part's last writes, its multipart completion and its D1 row run while the next
    // segment is encoded: at most one such part is in flight, awaited before the next starts its own.
    let finishing: Promise<StoredPart> | null = null;
    const settle = async (): Promise<void> => {
      if (finishing === null) return;
      const done = finishing;
      finishing = null;
      parts.push(await done);
    };
    try {
      for (const [index, segment] of segments.entries()) {
        const found = existing.get(segment.key);
        if (found) {
          await settle();
          parts.push(found);
          tail.add(await readStoredPartMetadata(env.CONTENT, found));
          continue;
        }
        const encoded = await encodePart(env, datasetId, segment, index === 0, version.schema, kinds, keys, past, timings);
        try {
          await settle();
        } catch (error: unknown) {
          if (!("needs" in encoded)) await encoded.upload.abort();
          throw error;
        }
        if ("needs" in encoded) {
          wider = encoded.needs;
          break;
        }
        writtenBytes += encoded.partBytes;
        encoded.distinctPast.forEach((column, i) => (past[i] ||= column));
        finishing = finishPart(env, datasetId, segment, encoding, encoded, tail);
        finishing.catch(() => {});
      }
      await settle();
    } finally {
      // A failed round leaves no part in flight behind it (its error is the one thrown).
      await finishing?.catch(() => {});
    }
    if (wider) {
      kinds = unifyKinds(kinds, wider);
      continue;
    }
    const plan = tail.plan();
    if (plan.reencode.length > 0) {
      kinds = unifyKinds(kinds, plan.kinds);
      continue;
    }
    const tailBytes = tail.finish();
    let tailKey: string | null = null;
    if (tailBytes.length > STORED_TAIL_BYTES) {
      tailKey = parquetKey(datasetId);
      await recordUploadIntents(env.DB, datasetId, [tailKey], Date.now() + timings.writeGraceMs);
      await env.CONTENT.put(tailKey, tailBytes);
      writtenBytes += tailBytes.length;
    }
    const fileBytes = 4 + parts.reduce((sum, part) => sum + part.dataBytes, 0) + tailBytes.length;
    const twin = { encoding, kinds: JSON.stringify(kinds), tailKey, tailBytes: tailBytes.length, summaryBytes: 0, documentBytes: 0, fileBytes, parts };
    if (await publishTwin(env.DB, datasetId, versionId, twin, Date.now() + timings.readGraceMs)) {
      // Wall time, not CPU time: it includes the R2 reads and writes of the parts it encoded.
      const encoded = parts.filter((part) => !existing.has(part.segmentKey)).length;
      console.log(JSON.stringify({ event: "parquet_built", datasetId, versionId, rows: version.rowCount, csvBytes: version.rawBytes, fileBytes, parts: parts.length, encoded, writtenBytes, ms: Date.now() - started }));
      return "built";
    }
    // Not applied: the version went, or a part was taken by the clean-up meanwhile.
    if (!(await getVersionContent(env.DB, datasetId, versionId, false)).version) return "gone";
    throw new Error(`twin of ${versionId} not published: one of its parts is being collected`);
  }
  throw new Error(`twin of ${versionId}: column kinds still widening after ${MAX_ROUNDS} rounds`);
}

/** The parent twin's kinds when it was built under the same schema (its parts are then reused), else the narrowest. */
async function startingKinds(parent: TwinState | null, schema: TableSchema): Promise<ColumnKind[]> {
  const narrowest = startKinds(schema);
  if (parent?.state !== "ready" || parent.kinds === null) return narrowest;
  const kinds = JSON.parse(parent.kinds) as ColumnKind[];
  // The encoding hashes the schema with the kinds: equal only when the parent had this schema.
  return kinds.length === narrowest.length && (await encodingOf(schema, kinds)) === parent.encoding ? kinds : narrowest;
}

/**
 * Hands a part writer's finished bytes to the upload one at a time, each let go of once copied
 * into the upload's buffer: a for-of over the list would hold every row group's bytes until the
 * last of them was written, across the upload's R2 round trips.
 */
async function send(upload: SegmentUpload, chunks: Uint8Array[]): Promise<void> {
  for (let i = 0; i < chunks.length; i++) {
    const bytes = chunks[i]!;
    chunks[i] = NOTHING;
    await upload.write(bytes);
  }
}

const NOTHING = new Uint8Array(0);

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

/** A part encoded, its row groups written to `upload`: what finishPart stores after them. */
interface EncodedPart {
  key: string;
  upload: SegmentUpload;
  dataBytes: number;
  rowCount: number;
  /** The head, the statistics summary and the row groups' pages, stored after the row groups. */
  sections: Uint8Array[];
  metadata: PartMetadata;
  /** The object's bytes: row groups and sections. */
  partBytes: number;
  /** Which columns' distinct count its rows alone put past the exact limit. */
  distinctPast: boolean[];
}

/** Encodes one segment's rows as a part's row groups, written to a new object as they are cut; or the kinds it needs. */
async function encodePart(
  env: TwinBindings,
  datasetId: string,
  segment: SegmentRow,
  opensWithHeader: boolean,
  schema: TableSchema,
  kinds: readonly ColumnKind[],
  keys: TextKeys,
  past: readonly boolean[],
  timings: StorageTimings,
): Promise<EncodedPart | { needs: ColumnKind[] }> {
  const key = parquetKey(datasetId);
  await recordUploadIntents(env.DB, datasetId, [key], Date.now() + timings.writeGraceMs);
  const upload = new SegmentUpload(env.CONTENT, key);
  try {
    const encoded = await encodeRows(env.CONTENT, segment, opensWithHeader, schema, kinds, keys, past, upload);
    if ("needs" in encoded) {
      await upload.abort();
      return encoded;
    }
    const partBytes = encoded.dataBytes + encoded.sections.reduce((sum, bytes) => sum + bytes.length, 0);
    return { key, upload, ...encoded, partBytes };
  } catch (error: unknown) {
    await upload.abort();
    throw error;
  }
}

/**
 * Stores an encoded part's sections after its row groups, completes the object and records it;
 * adds its metadata to `tail` (the recorded part's, read back when a concurrent build recorded
 * its own part of the segment first). By now the encoder's and the statistics' state are gone:
 * only the sections, the metadata and the upload are held while R2 and D1 answer.
 */
async function finishPart(env: TwinBindings, datasetId: string, segment: SegmentRow, encoding: string, encoded: EncodedPart, tail: TailWriter): Promise<StoredPart> {
  const { key, upload, dataBytes, rowCount, sections, partBytes } = encoded;
  const metaBytes = sections[0]!.length;
  const summaryBytes = sections[1]!.length;
  try {
    await send(upload, sections);
    const size = await upload.finish();
    if (size !== partBytes) throw new Error(`part ${key}: wrote ${size} bytes, expected ${partBytes}`);
  } catch (error: unknown) {
    await upload.abort();
    throw error;
  }
  const recorded = await recordPart(env.DB, datasetId, encoding, { key, segmentKey: segment.key, dataBytes, metaBytes, summaryBytes, rowCount });
  tail.add(recorded.key === key ? encoded.metadata : await readStoredPartMetadata(env.CONTENT, recorded));
  return recorded;
}

/**
 * Encodes one segment's rows into `upload`, its row groups written as they are cut, and returns
 * the sections stored after them: the head, the statistics summary, then the row groups' pages,
 * which only a query that needs them reads (docs/columnar.md "Part metadata"). The part writer
 * and the summaries live only as long as this call.
 */
async function encodeRows(
  bucket: R2Bucket,
  segment: SegmentRow,
  opensWithHeader: boolean,
  schema: TableSchema,
  kinds: readonly ColumnKind[],
  keys: TextKeys,
  past: readonly boolean[],
  upload: SegmentUpload,
): Promise<{ dataBytes: number; rowCount: number; sections: Uint8Array[]; metadata: PartMetadata; distinctPast: boolean[] } | { needs: ColumnKind[] }> {
  // The statistics of the same rows, fed by the encoder with the values it writes (docs/statistics.md).
  const summary = createSummaries(schema, keys);
  skipDistinctKeys(summary, past);
  const writer = new PartWriter(schema, kinds, { sinks: columnFeeds(summary, schema) });
  let fits = true;
  let turned = Date.now();
  for await (const batch of segmentCells(bucket, segment, opensWithHeader)) {
    fits = writer.addBatch(batch) && fits;
    if (fits) await send(upload, writer.takeBytes());
    if (Date.now() - turned >= TURN_EVERY_MS) {
      await nextTurn();
      turned = Date.now();
    }
  }
  const result = writer.finish();
  if (!result.ok) return { needs: result.kinds };
  await send(upload, writer.takeBytes());
  summary.rows = result.metadata.rows;
  const stored = encodePartMetadata(result.metadata);
  // The head, then the summary, then the row groups' pages, which only a query that needs them reads (docs/columnar.md "Part metadata").
  const text = new TextEncoder();
  const sections = [text.encode(stored.head), encodeSummary(summary), text.encode(stored.pages)];
  return { dataBytes: result.metadata.byteLength, rowCount: result.metadata.rows, sections, metadata: result.metadata, distinctPast: distinctPast(summary) };
}

/**
 * How the summaries of parts a build reuses key texts (docs/statistics.md, "Stored summaries"):
 * those stored in format 1 by their UTF-16 code units, which new parts then keep, so that the
 * version's summaries merge exactly; else by their UTF-8 bytes. One 5-byte read.
 */
async function textKeysOfParts(bucket: R2Bucket, parts: readonly StoredPart[]): Promise<TextKeys> {
  const part = parts.find((p) => p.summaryBytes > 0);
  if (!part) return "utf8";
  const format = summaryFormat(await readTwinRange(bucket, part.key, part.dataBytes + part.metaBytes, 5));
  return format === null ? "utf8" : textKeysOf(format);
}

