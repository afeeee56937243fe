// Builds a version's Parquet twin after its commit (docs/storage-protocol.md "The Parquet twin",
// docs/columnar.md): one part per segment, reused when the segment already has one under the
// same encoding (so an append encodes only its own rows), then the version's tail made from the
// parts' metadata alone (for its length; stored only when large), then one D1 batch that
// publishes it. The one writer of twins.
//
//   build(version):
//     kinds ← the parent twin's kinds under the same schema, else the schema's narrowest
//     repeat: encoding ← hash(schema, kinds)
//       for each segment: part(segment, encoding) exists → reuse
//                         else intent(part) → R2 put(row groups ‖ metadata) → record the part row
//       a part needs wider kinds, or planKinds says some must be re-encoded → kinds ← wider; again
//     tail ← writeTail(the parts' metadata, read and added one part at a time); only past STORED_TAIL_BYTES: intent(tail) → R2 put(tail)
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
import { encodePartMetadata, PartWriter, startKinds, TailWriter, unifyKinds, type ColumnKind } from "./parquet/index.ts";
import { readStoredPartMetadata, readTwinRange } from "./part-metadata-read.ts";
import { findParts, getTwinState, publishTwin, recordPart, type StoredPart, type TwinState } from "./store.ts";
import { columnFeeds } from "./statistics/column-feed.ts";
import { createSummaries, encodeSummary, summaryFormat, textKeysOf } from "./statistics/table-summary.ts";
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
    for (const [index, segment] of segments.entries()) {
      const found = existing.get(segment.key);
      if (found) {
        parts.push(found);
        continue;
      }
      const written = await writePart(env, datasetId, segment, index === 0, version.schema, kinds, encoding, keys, timings);
      if ("needs" in written) {
        wider = written.needs;
        break;
      }
      parts.push(written.part);
      writtenBytes += written.part.dataBytes + written.part.metaBytes + written.part.summaryBytes;
    }
    if (wider) {
      kinds = unifyKinds(kinds, wider);
      continue;
    }
    // The tail is made here for its length; a reader's first request for it makes it again from
    // the same parts (tail-object.ts). Only a tail too large to make on a read is stored. Parts'
    // metadata are read one at a time and dropped once added: held all at once, with their pages,
    // they were the build's largest live memory at its end (docs/performance.md).
    const made = await tailOf(env.CONTENT, version.schema, parts);
    if ("wider" in made) {
      kinds = unifyKinds(kinds, made.wider);
      continue;
    }
    const tail = made.tail;
    let tailKey: string | null = null;
    if (tail.length > STORED_TAIL_BYTES) {
      tailKey = parquetKey(datasetId);
      await recordUploadIntents(env.DB, datasetId, [tailKey], Date.now() + timings.writeGraceMs);
      await env.CONTENT.put(tailKey, tail);
      writtenBytes += tail.length;
    }
    const fileBytes = 4 + parts.reduce((sum, part) => sum + part.dataBytes, 0) + tail.length;
    const twin = { encoding, kinds: JSON.stringify(kinds), tailKey, tailBytes: tail.length, summaryBytes: 0, documentBytes: 0, fileBytes, parts };
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
 * The tail of `parts`, made one part's metadata at a time, or the kinds some parts must be
 * encoded again with. Only the tail outlives the call: the writer and the last part's metadata
 * go with it, before the tail is stored and the twin published.
 */
async function tailOf(bucket: R2Bucket, schema: TableSchema, parts: readonly StoredPart[]): Promise<{ tail: Uint8Array } | { wider: ColumnKind[] }> {
  const writer = new TailWriter(schema);
  for (const part of parts) writer.add(await readStoredPartMetadata(bucket, part));
  const plan = writer.plan();
  return plan.reencode.length > 0 ? { wider: plan.kinds } : { tail: writer.finish() };
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

type Written = { part: StoredPart } | { needs: ColumnKind[] };

/** Encodes one segment's rows as a part: its row groups, then its metadata, in one R2 object. */
async function writePart(
  env: TwinBindings,
  datasetId: string,
  segment: SegmentRow,
  opensWithHeader: boolean,
  schema: TableSchema,
  kinds: readonly ColumnKind[],
  encoding: string,
  keys: TextKeys,
  timings: StorageTimings,
): Promise<Written> {
  const key = parquetKey(datasetId);
  await recordUploadIntents(env.DB, datasetId, [key], Date.now() + timings.writeGraceMs);
  const upload = new SegmentUpload(env.CONTENT, key);
  try {
    const encoded = await encodeRows(env.CONTENT, segment, opensWithHeader, schema, kinds, keys, upload);
    if ("needs" in encoded) {
      await upload.abort();
      return encoded;
    }
    // By now the encoder's and the statistics' state are gone: the part's last writes, its
    // multipart completion and its D1 row wait with only its sections and the upload held.
    const { dataBytes, rowCount, sections } = encoded;
    const metaBytes = sections[0]!.length;
    const summaryBytes = sections[1]!.length;
    const expected = dataBytes + sections.reduce((sum, bytes) => sum + bytes.length, 0);
    await send(upload, sections);
    const size = await upload.finish();
    if (size !== expected) throw new Error(`part ${key}: wrote ${size} bytes, expected ${expected}`);
    const part = { key, segmentKey: segment.key, dataBytes, metaBytes, summaryBytes, rowCount };
    return { part: await recordPart(env.DB, datasetId, encoding, part) };
  } catch (error: unknown) {
    await upload.abort();
    throw error;
  }
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
  upload: SegmentUpload,
): Promise<{ dataBytes: number; rowCount: number; sections: Uint8Array[] } | { needs: ColumnKind[] }> {
  // The statistics of the same rows, fed by the encoder with the values it writes (docs/statistics.md).
  const summary = createSummaries(schema, keys);
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
  return { dataBytes: result.metadata.byteLength, rowCount: result.metadata.rows, sections };
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

