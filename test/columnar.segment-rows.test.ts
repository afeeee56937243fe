// The twin build's reading of a stored segment (src/columnar/segment-rows.ts): inflated part by
// part and gathered before it is decoded. Random segments of RFC 4180 text (quoted fields with
// commas, quotes and line breaks, CRLF, non-ASCII cut anywhere by the parts and the gathering,
// empty cells, a header) read back as the whole text decodes in one call.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { GATHER_BYTES, segmentRows } from "../src/columnar/segment-rows.ts";
import { CELL_CAPACITY } from "../src/csv/cell-decoder.ts";
import { parseCsvRecords } from "../src/csv/index.ts";
import type { SegmentRow } from "../src/model/dataset.ts";
import { compressSegment, concatBytes } from "../src/wire/deflate-segment.ts";
import type { SegmentPart } from "../src/wire/parted-segment.ts";
import { encodeRows, mulberry32, randomField, randomInt, type Random } from "./helpers/random.ts";

/** `text` stored as one segment, in parts cut at random bytes when `random` is given, else one part without part rows. */
async function stored(text: string, rowCount: number, random?: Random): Promise<SegmentRow> {
  const key = `test/segment-rows/${crypto.randomUUID()}`;
  const raw = new TextEncoder().encode(text);
  const cuts = [0];
  while (random && cuts.at(-1)! < raw.length) cuts.push(cuts.at(-1)! + randomInt(random, 1, 200_000));
  cuts.push(raw.length);
  const parts: SegmentPart[] = [];
  const data: Uint8Array[] = [];
  let offset = 0;
  for (let i = 0; i + 1 < cuts.length && cuts[i]! < raw.length; i++) {
    const part = compressSegment(raw.subarray(cuts[i], Math.min(cuts[i + 1]!, raw.length)), 1);
    parts.push({ compressedOffset: offset, compressedBytes: part.compressedBytes, rawBytes: part.rawBytes, rowCount: 0 });
    data.push(part.data);
    offset += part.compressedBytes;
  }
  const bytes = concatBytes(data);
  await env.CONTENT.put(key, bytes);
  const segment: SegmentRow = { key, compressedBytes: bytes.length, rawBytes: raw.length, rowCount };
  return random ? { ...segment, parts } : segment;
}

async function read(segment: SegmentRow, header: boolean): Promise<{ records: string[][]; batches: number }> {
  const records: string[][] = [];
  let batches = 0;
  for await (const batch of segmentRows(env.CONTENT, segment, header)) {
    batches++;
    for (const record of batch) records.push(record);
  }
  return { records, batches };
}

describe("a segment's rows for the twin build", () => {
  it("decodes random segments, several times the gathered size, as one call decodes the whole text", async () => {
    for (let seed = 1; seed <= 6; seed++) {
      const random = mulberry32(seed);
      const columns = randomInt(random, 1, 6);
      const rows: string[][] = [];
      let length = 0;
      // Up to about three gathered batches, so records and characters cross their edges.
      const target = randomInt(random, 1, 3 * GATHER_BYTES);
      while (length < target) {
        const row = Array.from({ length: columns }, () => randomField(random));
        // A record of one empty field is a blank line, which a stored segment never holds.
        if (columns === 1 && row[0] === "") row[0] = "x";
        rows.push(row);
        length += row.join(",").length + 2;
      }
      const header = seed % 2 === 0;
      const text = encodeRows(header ? [Array.from({ length: columns }, (_, i) => `c${i}`), ...rows] : rows, seed % 3 === 0 ? "\r\n" : "\n", random);
      const expected = parseCsvRecords(text).slice(header ? 1 : 0);
      expect(expected).toHaveLength(rows.length);
      const { records, batches } = await read(await stored(text, rows.length, seed % 3 === 1 ? undefined : random), header);
      expect(records, `seed ${seed}`).toEqual(expected);
      // Gathered: far fewer batches than the inflate's 4 KiB chunks (a batch also ends when the decoder's cells are full).
      const cells = expected.reduce((sum, record) => sum + record.length, 0);
      expect(batches).toBeLessThanOrEqual(Math.ceil(new TextEncoder().encode(text).length / GATHER_BYTES) + Math.ceil(cells / CELL_CAPACITY) + 1);
    }
  });

  it("still refuses a segment whose rows disagree with its row count", async () => {
    const segment = await stored("a,b\n1,2\n3,4\n", 3);
    await expect(read(segment, true)).rejects.toThrow(/holds 2 data rows/);
  });
});
