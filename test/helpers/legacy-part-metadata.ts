// Part metadata as twins built before version 3 stored it: one JSON document, each chunk's pages
// in the head (version 2), or without page bounds (version 1). Made from the version-3 form, so
// tests can store parts the way older builds did and check they still read.
import { encodePartMetadata, type PartMetadata } from "../../src/columnar/parquet/index.ts";

export function legacyPartMetadata(metadata: PartMetadata, version: 1 | 2): string {
  const stored = encodePartMetadata(metadata);
  const head = JSON.parse(stored.head) as { groups: [number, unknown[][], [number, number]][] };
  const groups = head.groups.map(([rows, chunks, [offset, length]]) => {
    const pages = JSON.parse(stored.pages.slice(offset, offset + length)) as unknown[][];
    // Version 2: offset … max, then offsets, sizes, first rows, page bounds, then fraction digits.
    const whole = chunks.map((chunk, c) => [...chunk.slice(0, 9), ...pages[c]!, chunk[9]]);
    return [rows, version === 1 ? whole.map((chunk) => chunk.slice(0, 12)) : whole];
  });
  return JSON.stringify({ ...head, v: version, groups });
}
