// A part's whole metadata, as the tail writer and a rebuild need it (docs/columnar.md "Part
// metadata"): the head stored after the part's row groups, then, for a part that keeps its row
// groups' pages apart (version 3), those pages, stored after its statistics summary.
import { decodePartHead, decodePartMetadata, storedPagesBytes, type PartMetadata } from "./parquet/index.ts";

/** Where a part object's sections end: row groups, head, summary; its pages (if any) follow. */
export interface PartSections {
  dataBytes: number;
  metaBytes: number;
  summaryBytes: number;
}

/** Reads `length` bytes of the part object from `offset`. */
export type PartRead = (offset: number, length: number) => Promise<Uint8Array>;

export async function readPartMetadata(read: PartRead, part: PartSections): Promise<PartMetadata> {
  const text = new TextDecoder();
  const head = text.decode(await read(part.dataBytes, part.metaBytes));
  const pagesBytes = storedPagesBytes(decodePartHead(head));
  const pages = pagesBytes > 0 ? text.decode(await read(part.dataBytes + part.metaBytes + part.summaryBytes, pagesBytes)) : "";
  return decodePartMetadata(head, pages);
}
