// The part writer reading cells from their bytes (src/csv/cell-decoder.ts batches, the readers
// of src/columnar/parquet/cell-values.ts) against the known-good reading: the same random CSV
// decoded to strings by CsvRecordDecoder and written from them gives the same part, byte for
// byte, the same metadata and the same statistics summary, whatever chunks the bytes come in.
// And the double reader's exact shortcut gives the doubles Number gives, on sampled spellings.
import { describe, expect, it } from "vitest";
import { readNumber, textBytes } from "../../src/columnar/parquet/cell-values.ts";
import { type ColumnKind, PartWriter, startKinds } from "../../src/columnar/parquet/index.ts";
import { columnFeeds } from "../../src/columnar/statistics/column-feed.ts";
import { createSummaries, encodeSummary } from "../../src/columnar/statistics/table-summary.ts";
import { CellDecoder } from "../../src/csv/cell-decoder.ts";
import { parseCsvRecords } from "../../src/csv/index.ts";
import type { TableSchema } from "../../src/schema/table-schema.ts";
import { random } from "./helpers/random-table.ts";

const SCHEMA: TableSchema = {
  fields: [
    { name: "i", type: "integer" },
    { name: "x", type: "number" },
    { name: "b", type: "boolean" },
    { name: "d", type: "date" },
    { name: "t", type: "datetime" },
    { name: "h", type: "time" },
    { name: "s", type: "string" },
    { name: "n", type: "integer" },
    // Mostly distinct, so written PLAIN past the dictionary's trial, doubled quotes included.
    { name: "u", type: "string" },
  ],
  missingValues: [""],
};

/** A cell as a CSV writer may spell it: bare, quoted, or quoted with a doubled quote when it holds one. */
function spelled(rnd: () => number, cell: string): string {
  if (/[",\r\n]/.test(cell) || rnd() < 0.1) return `"${cell.replaceAll('"', '""')}"`;
  return cell;
}

/** Valid cells of each field; "wide" adds some that need a wider kind than the field's first (column-kinds.ts). */
function randomCsv(rnd: () => number, rows: number, kinds: "narrow" | "wide"): string {
  const pick = <T>(items: readonly T[]) => items[Math.floor(rnd() * items.length)]!;
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(rnd() * 10)).join("");
  const lines: string[] = [];
  for (let r = 0; r < rows; r++) {
    const cells = [
      pick(["", "0", "-0", "+7", String(Math.floor(rnd() * 2e9) - 1e9), digits(15), `-${digits(15)}`, "9223372036854775807", "-9223372036854775808", ...(kinds === "wide" ? ["9223372036854775808", `1${digits(30)}`] : [])]),
      pick(["", "NaN", "INF", "-INF", "-0", "0.1", ".5", "5.", "+1e-7", "1E22", "1e23", "123456789012345.6", "0.30000000000000004", `${digits(3)}.${digits(2)}`, `${digits(1)}e-${digits(1)}`]),
      pick(["", "true", "false", "TRUE", "False", "tRuE"]),
      pick(["", "1969-12-31", "2024-02-29", "0001-01-01", "9999-12-31"]),
      pick(["", "2024-01-02T03:04:05Z", "2024-01-02T03:04:05.123456Z", "2024-01-02 03:04:05.1234567+02:00", "1960-06-30T23:59:60Z", "2024-01-02t03:04:05-11:30", ...(kinds === "wide" ? ["2024-01-02T03:04:05"] : [])]),
      pick(["", "00:00:00", "23:59:59.999999", "12:00:00.5", ...(kinds === "wide" ? ["12:00:00Z", "12:00:00+01:00"] : [])]),
      pick(["", "a", "Zürich", "😀", '"quoted"', "a,b", "line\nbreak", "\uFEFFbom", `row ${r}`, "x".repeat(200)]),
      pick(["", "1", "2", "3"]),
      pick(["", `"q${r}" said "${r}"`, `u ${r} 😀`, `é${r}`, `${r}`]),
    ];
    // Now and then a short record: its missing cells read as empty.
    const kept = rnd() < 0.05 ? cells.slice(0, 1 + Math.floor(rnd() * 7)) : cells;
    lines.push(kept.map((cell) => spelled(rnd, cell)).join(","));
  }
  return lines.join(rnd() < 0.5 ? "\n" : "\r\n") + (rnd() < 0.5 ? "\n" : "");
}

interface Written {
  bytes: Uint8Array[];
  metadata: unknown;
  summary: Uint8Array;
  kinds: ColumnKind[] | null;
}

function write(feed: (writer: PartWriter) => void, kinds: readonly ColumnKind[], rowGroupRows: number): Written {
  const summary = createSummaries(SCHEMA);
  const writer = new PartWriter(SCHEMA, kinds, { rowGroupRows, pageRows: 64, sinks: columnFeeds(summary, SCHEMA) });
  feed(writer);
  const result = writer.finish();
  return { bytes: writer.takeBytes(), metadata: result.ok ? result.metadata : null, summary: encodeSummary(summary), kinds: result.ok ? null : result.kinds };
}

describe("the part writer over cell bytes", () => {
  it("writes what it writes from the same rows as strings, whatever chunks the bytes come in", () => {
    for (let seed = 1; seed <= 24; seed++) {
      const rnd = random(seed);
      const csv = randomCsv(rnd, 1 + Math.floor(rnd() * 1500), seed % 3 === 0 ? "wide" : "narrow");
      const rowGroupRows = 100 + Math.floor(rnd() * 1000);
      const bytes = new TextEncoder().encode(csv);
      const rows = parseCsvRecords(csv);
      let kinds: ColumnKind[] = startKinds(SCHEMA);
      for (;;) {
        const expected = write((writer) => writer.addRows(rows), kinds, rowGroupRows);
        const got = write((writer) => {
          const decoder = new CellDecoder({ midFile: true, cells: 1 + Math.floor(rnd() * 4000) });
          const drain = () => {
            for (let batch = decoder.take(); batch !== null; batch = decoder.take()) writer.addBatch(batch);
          };
          for (let at = 0; at < bytes.length; ) {
            const to = Math.min(bytes.length, at + 1 + Math.floor(rnd() * 20_000));
            decoder.push(bytes.subarray(at, to));
            drain();
            at = to;
          }
          decoder.finish();
          drain();
        }, kinds, rowGroupRows);
        expect(got.kinds, `seed ${seed}`).toEqual(expected.kinds);
        if (expected.kinds !== null) {
          kinds = expected.kinds;
          continue;
        }
        expect(got.metadata, `seed ${seed}`).toEqual(expected.metadata);
        expect(Buffer.concat(got.bytes).equals(Buffer.concat(expected.bytes)), `seed ${seed}: the part's bytes`).toBe(true);
        expect(Buffer.from(got.summary).equals(Buffer.from(expected.summary)), `seed ${seed}: the statistics summary`).toBe(true);
        break;
      }
    }
  });

  it("reads a double exactly as Number does, on sampled spellings", () => {
    const rnd = random(7);
    const digits = (n: number) => Array.from({ length: n }, () => Math.floor(rnd() * 10)).join("");
    for (let i = 0; i < 20_000; i++) {
      const sign = ["", "-", "+"][Math.floor(rnd() * 3)]!;
      const int = digits(Math.floor(rnd() * 18));
      const frac = rnd() < 0.7 ? `.${digits(Math.floor(rnd() * 18))}` : "";
      const exp = rnd() < 0.3 ? `${rnd() < 0.5 ? "e" : "E"}${["", "-", "+"][Math.floor(rnd() * 3)]}${digits(1 + Math.floor(rnd() * 3))}` : "";
      const text = sign + int + frac + exp;
      if (!/\d/.test(int + frac)) continue;
      const value = readNumber(textBytes(text), 0, text.length);
      expect(Object.is(value, Number(text)), text).toBe(true);
    }
  });
});
