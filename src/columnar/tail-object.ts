// A twin's Parquet tail (column and offset indexes, then the footer: docs/columnar.md
// "Stitched layout"), written by the build only into its length: writeTail is a function of the
// parts' metadata and the schema, so the bytes are made again from the parts when a reader first
// asks for the end of the file, and kept in the isolate (docs/storage-protocol.md "The Parquet
// twin"). Twins built before kept the tail as an object of its own, read from there.
import { KeptInIsolate } from "../storage/kept-in-isolate.ts";
import { TailWriter } from "./parquet/index.ts";
import { readStoredPartMetadata } from "./part-metadata-read.ts";
import type { TwinRow } from "../read/store.ts";
import type { TableSchema } from "../schema/table-schema.ts";

/** Tails kept per isolate, keyed by the twin's parts (a rebuild stitches others). */
const kept = new KeptInIsolate<Uint8Array>(8 * 1024 * 1024);

/** The identity of a twin's file: its parts in order (a ready twin's tail is a function of them). */
export function twinIdentity(twin: Pick<TwinRow, "parts">): string {
  return twin.parts.map((part) => part.key).join(",");
}

/**
 * The tail's bytes of a ready twin whose tail is not stored: made from its parts' metadata.
 * Throws when they do not come to the length the build published (a broken invariant).
 */
export async function madeTail(bucket: R2Bucket, schema: TableSchema, twin: TwinRow): Promise<Uint8Array> {
  const key = twinIdentity(twin);
  const cached = kept.get(key);
  if (cached) return cached;
  // One part's metadata at a time, each dropped once added: read all at once, with their pages,
  // the parts of a large twin held several times the tail's size (docs/performance.md).
  const writer = new TailWriter(schema);
  for (const part of twin.parts) writer.add(await readStoredPartMetadata(bucket, part));
  const tail = writer.finish();
  if (tail.length !== twin.tailBytes) throw new Error(`parquet tail of ${twin.parts.length} parts made ${tail.length} bytes, published ${twin.tailBytes}`);
  kept.keep(key, tail, tail.length);
  return tail;
}
