// The cell kernel's decoder (src/csv/cell-decoder.ts) against the JavaScript record decoder
// (records.ts), the known-good reading: random texts, cut into random chunks of bytes (so UTF-8
// sequences, CRLF and doubled quotes fall across chunk edges), decode to the same records, or
// fail with the same error at the same record.
import { describe, expect, it } from "vitest";
import { CellBatch } from "../src/csv/cell-batch.ts";
import { CellDecoder } from "../src/csv/cell-decoder.ts";
import { CsvError, CsvRecordDecoder } from "../src/csv/index.ts";
import { hashUtf8, KEY } from "../src/csv/text-key.ts";
import { encodeRows, mulberry32, pick, randomField, randomInt, type Random } from "./helpers/random.ts";

type Outcome = { records: string[][] } | { error: string; row?: number };

function outcome(read: () => string[][]): Outcome {
  try {
    return { records: read() };
  } catch (error: unknown) {
    if (error instanceof CsvError) return { error: error.code, row: error.row! };
    if (error instanceof TypeError) return { error: "utf8" };
    throw error;
  }
}

/**
 * The known-good reading: a fatal TextDecoder, then CsvRecordDecoder over the whole text. Bytes
 * that are not UTF-8 fail either way, but which error comes first depends on where the text
 * is cut (the build decodes a chunk's text before its records), so only failing is compared.
 */
function expected(bytes: Uint8Array, midFile: boolean, got: Outcome): Outcome {
  if ("error" in got && new TextDecoder().decode(bytes).includes("\uFFFD")) return got;
  return outcome(() => {
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: midFile }).decode(bytes);
    const decoder = new CsvRecordDecoder({ midFile });
    return [...decoder.push(text), ...decoder.finish()];
  });
}

function decoded(bytes: Uint8Array, cuts: number[], midFile: boolean, cells: number): Outcome {
  return outcome(() => {
    const decoder = new CellDecoder({ midFile, cells });
    const records: string[][] = [];
    const drain = () => {
      for (let batch = decoder.take(); batch !== null; batch = decoder.take()) records.push(...batch.rows());
    };
    let at = 0;
    for (const cut of [...cuts, bytes.length]) {
      decoder.push(bytes.subarray(at, cut));
      at = cut;
      drain();
    }
    decoder.finish();
    drain();
    return records;
  });
}

const SPOILERS = ["\r", "\n", "\n\n", "\r\n\r\n", '"', 'x"y', '"a"b', "\uFEFF", ",", "\xff"];

/** A random text: rows of random fields, ragged at times, with blank lines and now and then something a decoder refuses. */
function randomText(random: Random): Uint8Array {
  const columns = randomInt(random, 1, 5);
  const rows = Array.from({ length: randomInt(random, 0, 60) }, () => Array.from({ length: random() < 0.1 ? randomInt(random, 1, 7) : columns }, () => randomField(random)));
  let text = encodeRows(rows, random() < 0.5 ? "\n" : "\r\n", random);
  if (random() < 0.3) text = text.replace(/\r?\n$/, "");
  if (random() < 0.3) text = (random() < 0.5 ? "\uFEFF" : "") + "\n".repeat(randomInt(random, 0, 2)) + text + "\r\n".repeat(randomInt(random, 0, 3));
  const bytes = new TextEncoder().encode(text);
  if (random() < 0.25) {
    // Something at a random place: a lone CR, a bare quote, stray bytes that are not UTF-8.
    const spoiler = pick(random, SPOILERS);
    const spoilt = spoiler === "\xff" ? Uint8Array.of(0xff) : new TextEncoder().encode(spoiler);
    const at = randomInt(random, 0, bytes.length);
    const out = new Uint8Array(bytes.length + spoilt.length);
    out.set(bytes.subarray(0, at));
    out.set(spoilt, at);
    out.set(bytes.subarray(at), at + spoilt.length);
    return out;
  }
  return bytes;
}

describe("the cell decoder", () => {
  it("reads random texts cut into random chunks as the record decoder reads them whole", () => {
    for (let seed = 1; seed <= 600; seed++) {
      const random = mulberry32(seed);
      const bytes = randomText(random);
      const cuts = Array.from({ length: randomInt(random, 0, 8) }, () => randomInt(random, 0, bytes.length)).sort((a, b) => a - b);
      const midFile = random() < 0.5;
      const cells = pick(random, [1, 3, 16, 1024]);
      expect(decoded(bytes, cuts, midFile, cells), `seed ${seed}`).toEqual(expected(bytes, midFile, decoded(bytes, cuts, midFile, cells)));
    }
  });

  it("keeps a four-byte character cut byte by byte, and a doubled quote across chunks", () => {
    const bytes = new TextEncoder().encode('a,"x""😀""y"\n😀,b\n');
    const cuts = Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);
    expect(decoded(bytes, cuts, true, 2)).toEqual({ records: [["a", 'x"😀"y'], ["😀", "b"]] });
  });

  it("gives each cell's bytes and UTF-16 span, and marks a cell that held a doubled quote", () => {
    const decoder = new CellDecoder({ midFile: true });
    decoder.push(new TextEncoder().encode('é,"q""",\n'));
    decoder.finish();
    const batch = decoder.take()!;
    expect(batch.records).toBe(1);
    const cell = (k: number) => Array.from(batch.cells.subarray(4 * k, 4 * k + 4));
    const [start0, end0, u0, v0] = cell(0);
    expect([end0! - start0!, u0, v0]).toEqual([2, 0, 1]);
    expect(cell(1)[0]! < 0).toBe(true);
    expect(batch.cellText(1)).toBe('q"');
    expect(batch.cellText(2)).toBe("");
    expect(decoder.take()).toBeNull();
  });

  it("makes a batch from rows of strings that reads back the same", () => {
    const rows = [["a", "😀", ""], ['x"y'], []];
    const batch = CellBatch.fromRows(rows);
    expect(batch.rows()).toEqual(rows);
    expect(new TextDecoder().decode(batch.bytes.subarray(batch.cells[4]!, batch.cells[5]!))).toBe("😀");
  });

  it("keys each cell's bytes with hashUtf8's bits and counts its code points, in the kernel and from rows", () => {
    const pieces = ["a", "xyz", "Zürich", "é", "東京", "€", "😀", '"', ",", "\n", "42", "x y z w", ""];
    let keyed = 0;
    let escaped = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const random = mulberry32(seed);
      const rows = Array.from({ length: randomInt(random, 1, 20) }, () =>
        Array.from({ length: randomInt(random, 1, 4) }, () => Array.from({ length: randomInt(random, 0, 12) }, () => pick(random, pieces)).join("")),
      );
      const bytes = new TextEncoder().encode(encodeRows(rows, random() < 0.5 ? "\n" : "\r\n", random));
      const decoder = new CellDecoder({ midFile: true, cells: pick(random, [1, 5, 1024]) });
      const cuts = Array.from({ length: randomInt(random, 0, 4) }, () => randomInt(random, 0, bytes.length)).sort((a, b) => a - b);
      let at = 0;
      const check = (batch: CellBatch) => {
        for (let c = 0; c < 4; c++) batch.keyColumn(c, 0, batch.records);
        const texts = batch.rows().flat();
        const fromRows = CellBatch.fromRows(batch.rows());
        for (let k = 0; k < texts.length; k++) {
          const start = batch.cells[4 * k]!;
          const points = [...texts[k]!].length;
          expect(fromRows.keys[3 * k + 2], `seed ${seed}`).toBe(points);
          if (start < 0) {
            escaped++;
            continue;
          }
          const length = hashUtf8(batch.bytes, start, batch.cells[4 * k + 1]! - start);
          const expected = [KEY[0]! | 0, KEY[1]! | 0, length];
          expect(Array.from(batch.keys.subarray(3 * k, 3 * k + 3)), `seed ${seed}, cell ${JSON.stringify(texts[k])}`).toEqual(expected);
          expect(Array.from(fromRows.keys.subarray(3 * k, 3 * k + 3))).toEqual(expected);
          expect(length).toBe(points);
          keyed++;
        }
      };
      for (const cut of [...cuts, bytes.length]) {
        decoder.push(bytes.subarray(at, cut));
        at = cut;
        for (let batch = decoder.take(); batch !== null; batch = decoder.take()) check(batch);
      }
      decoder.finish();
      for (let batch = decoder.take(); batch !== null; batch = decoder.take()) check(batch);
    }
    expect(keyed).toBeGreaterThan(1000);
    expect(escaped).toBeGreaterThan(100);
  });

  it("keys only the column and records asked for, after a header is dropped", () => {
    const decoder = new CellDecoder({ midFile: true });
    decoder.push(new TextEncoder().encode('h1,h2\né,"a""b"\n東京\n😀,z\n'));
    decoder.finish();
    const batch = decoder.take()!;
    batch.dropFirst();
    batch.keys.fill(0);
    batch.keyColumn(1, 1, 3);
    const keyOf = (text: string) => {
      const bytes = new TextEncoder().encode(text);
      const points = hashUtf8(bytes, 0, bytes.length);
      return [KEY[0]! | 0, KEY[1]! | 0, points];
    };
    // Record 0's "a""b" was not asked for, record 1 has no second cell, record 2's is z.
    expect(Array.from(batch.keys).filter((v) => v !== 0)).toEqual(keyOf("z").filter((v) => v !== 0));
    const z = batch.ends[1]! + 1;
    expect(Array.from(batch.keys.subarray(3 * z, 3 * z + 3))).toEqual(keyOf("z"));
    batch.keyColumn(0, 0, 3);
    for (const [r, text] of [[0, "é"], [1, "東京"], [2, "😀"]] as const) {
      const k = r === 0 ? batch.first : batch.ends[r - 1]!;
      expect(Array.from(batch.keys.subarray(3 * k, 3 * k + 3)), text).toEqual(keyOf(text));
    }
  });
});
