// Reads of a twin's objects, and a part's whole metadata as the tail writer and a rebuild need it
// (docs/columnar.md "Part metadata"): the head stored after the part's row groups, then, for a
// part that keeps its row groups' pages apart (version 3), those pages, stored after its
// statistics summary.
import { decodePartHead, decodePartMetadata, storedPagesBytes, type PartMetadata } from "./parquet/index.ts";

/** Where a part object's sections end: row groups, head, summary; its pages (if any) follow. */
export interface PartSections {
  dataBytes: number;
  metaBytes: number;
  summaryBytes: number;
}

/** Reads `length` bytes of the part object from `offset`. */
export type PartRead = (offset: number, length: number) => Promise<Uint8Array>;

/** Bytes `offset` to `offset + length` of a twin object (a part, a tail, a stored document). */
export async function readTwinRange(bucket: R2Bucket, key: string, offset: number, length: number): Promise<Uint8Array> {
  const object = await bucket.get(key, { range: { offset, length } });
  if (!object) throw new Error(`parquet object missing: ${key}`);
  return new Uint8Array(await object.arrayBuffer());
}

/** A stored part's whole metadata, read from R2. */
export function readStoredPartMetadata(bucket: R2Bucket, part: PartSections & { key: string }): Promise<PartMetadata> {
  return readPartMetadata((offset, length) => readTwinRange(bucket, part.key, offset, length), part);
}

export async function readPartMetadata(read: PartRead, part: PartSections): Promise<PartMetadata> {
  const text = new TextDecoder();
  const head = text.decode(await read(part.dataBytes, part.metaBytes));
  const pagesBytes = storedPagesBytes(decodePartHead(head));
  const pages = pagesBytes > 0 ? text.decode(await read(part.dataBytes + part.metaBytes + part.summaryBytes, pagesBytes)) : "";
  return decodePartMetadata(head, pages);
}
