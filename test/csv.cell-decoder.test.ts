// The cell kernel's decoder (src/csv/cell-decoder.ts) against the JavaScript record decoder
// (records.ts), the known-good reading: random texts, cut into random chunks of bytes (so UTF-8
// sequences, CRLF and doubled quotes fall across chunk edges), decode to the same records, or
// fail with the same error at the same record.
import { describe, expect, it } from "vitest";
import { CellBatch } from "../src/csv/cell-batch.ts";
import { CellDecoder } from "../src/csv/cell-decoder.ts";
import { CsvError, CsvRecordDecoder } from "../src/csv/index.ts";
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
});
