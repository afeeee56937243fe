// The typed cells read by typed-kernel.wasm (src/columnar/parquet/typed-cells.ts) against the
// readers of cell-values.ts: random columns of integers, doubles, dates, times and datetimes,
// their edge spellings included, written once through the kernel and once through the per-cell
// readers (a second missing value, which no cell holds, keeps the kernel out) give the same part,
// byte for byte, the same metadata, the same widened kinds and the same statistics summary. Cells
// a field's type refuses never reach a build (ingest casts every cell); they are written here too,
// without statistics, as the encoder alone must still read them as text.
import { describe, expect, it } from "vitest";
import { type ColumnKind, PartWriter, startKinds } from "../../src/columnar/parquet/index.ts";
import { columnFeeds } from "../../src/columnar/statistics/column-feed.ts";
import { createSummaries, encodeSummary } from "../../src/columnar/statistics/table-summary.ts";
import { CellDecoder } from "../../src/csv/cell-decoder.ts";
import type { TableSchema } from "../../src/schema/table-schema.ts";
import { random } from "./helpers/random-table.ts";

const SCHEMA: TableSchema = {
  fields: [
    { name: "i", type: "integer" },
    { name: "x", type: "number" },
    { name: "d", type: "date" },
    { name: "t", type: "datetime" },
    { name: "h", type: "time" },
    { name: "q", type: "integer" },
    { name: "e", type: "date" },
    { name: "y", type: "number" },
    { name: "z", type: "integer" },
    { name: "w", type: "datetime" },
  ],
  missingValues: [""],
};
/** The same fields with a missing value no cell holds: every cell goes through byte-cells.ts's readers. */
const PER_CELL: TableSchema = { ...SCHEMA, missingValues: ["", "\u0001"] };

type Rnd = () => number;
/** Cells of the fields' kinds only, or some needing a wider kind (still of the field's type), or some of no type at all. */
type Flavour = "narrow" | "wide" | "invalid";
const pick = <T>(rnd: Rnd, items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
const digits = (rnd: Rnd, n: number) => Array.from({ length: n }, () => Math.floor(rnd() * 10)).join("");
const pad = (n: number, width = 2) => String(n).padStart(width, "0");

function integer(rnd: Rnd, flavour: Flavour): string {
  if (rnd() < 0.3) {
    const edges = ["0", "-0", "+0", "+7", "007", "-9223372036854775808", "9223372036854775807", "-9223372036854775807", "1000000000000000000", "999999999999999999", "-999999999999999999", "0000000000000000001", "9007199254740993", "-9007199254740993", "4294967296", "-4294967296", "2147483648"];
    const wider = ["9223372036854775808", "-9223372036854775809", "18446744073709551615", "99999999999999999999", `1${digits(rnd, 30)}`, "00000000000000000000001"];
    const invalid = ["1e3", "1.0", " 1", "-", "+", "--1", "0x10", "１"];
    if (flavour !== "narrow" && rnd() < 0.3) return pick(rnd, flavour === "invalid" && rnd() < 0.5 ? invalid : wider);
    return pick(rnd, edges);
  }
  const sign = pick(rnd, ["", "", "-", "+"]);
  // Up to 18 digits, or 19 below 9 × 10^18: inside int64.
  if (rnd() < 0.1) return `${sign}${1 + Math.floor(rnd() * 8)}${digits(rnd, 18)}`;
  return sign + digits(rnd, 1 + Math.floor(rnd() * 18));
}

function number(rnd: Rnd, flavour: Flavour): string {
  if (rnd() < 0.3) {
    const edges = ["NaN", "INF", "-INF", "-0", "0", "+0", "-0.0", "0.30000000000000004", "1e22", "1e23", "1e-22", "1e-23", "123456789012345", "1234567890123456", "-123456789012345.6", ".5", "5.", "-.5", "+5.", "1E+0005", "1e-00005", "4.9e-324", "1.7976931348623157e308", "1e308", "1e309", "9007199254740993", "0.000000000000001", "0.0000000000000001"];
    const invalid = ["+INF", "+NaN", "nan", "inf", "Infinity", ".", "-.", "e5", "1e", "1e+", "1.2.3", "1_000", "0x1p3", " 1"];
    return pick(rnd, flavour === "invalid" && rnd() < 0.3 ? invalid : edges);
  }
  const sign = pick(rnd, ["", "", "-", "+"]);
  const int = digits(rnd, Math.floor(rnd() * 12));
  const frac = rnd() < 0.7 ? `.${digits(rnd, 1 + Math.floor(rnd() * 8))}` : "";
  const exp = rnd() < 0.2 ? `${pick(rnd, ["e", "E"])}${pick(rnd, ["", "-", "+"])}${digits(rnd, 1 + Math.floor(rnd() * 3))}` : "";
  return sign + (int === "" && frac === "" ? "0" : int) + frac + exp;
}

function date(rnd: Rnd, flavour: Flavour): string {
  if (rnd() < 0.3) {
    const edges = ["1969-12-31", "1970-01-01", "0000-01-01", "0000-02-29", "0000-03-01", "0001-01-01", "1600-02-29", "2000-02-29", "1582-10-10", "9999-12-31", "1899-12-31"];
    const invalid = ["1900-02-29", "2023-02-29", "2024-13-01", "2024-00-10", "2024-01-00", "2024-01-32", "2024-1-01", "2024-01-01T00:00:00Z", "20240101", "-0001-01-01", "2024/01/01"];
    return pick(rnd, flavour === "invalid" && rnd() < 0.3 ? invalid : edges);
  }
  const year = Math.floor(rnd() * 10000);
  const month = 1 + Math.floor(rnd() * 12);
  const day = 1 + Math.floor(rnd() * 28);
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

function clock(rnd: Rnd): string {
  const fraction = rnd() < 0.5 ? "" : `.${digits(rnd, 1 + Math.floor(rnd() * 9))}`;
  return `${pad(Math.floor(rnd() * 24))}:${pad(Math.floor(rnd() * 60))}:${pad(Math.floor(rnd() * (rnd() < 0.01 ? 61 : 60)))}${fraction}`;
}

/** A datetime in `zone`: "z" (Z or an offset), "local" (none), or "mixed" (either, which widens the column to text). */
function datetime(rnd: Rnd, zone: "z" | "local" | "mixed", flavour: Flavour): string {
  if (flavour === "invalid" && rnd() < 0.05) return pick(rnd, ["2024-01-02T24:00:00Z", "2024-01-02T03:04:05+24:00", "2024-01-02T03:04Z", "2024-01-02T03:04:05.Z", "2024-02-30T00:00:00Z", "2024-01-02T03:04:05+0100"]);
  const sep = pick(rnd, ["T", "T", "T", "t", " "]);
  const zoned = zone === "z" || (zone === "mixed" && rnd() < 0.5);
  const offset = zoned ? pick(rnd, ["Z", "Z", "z", "+00:00", "-00:00", `+${pad(Math.floor(rnd() * 24))}:${pad(Math.floor(rnd() * 60))}`, `-${pad(Math.floor(rnd() * 24))}:${pad(Math.floor(rnd() * 60))}`]) : "";
  return `${date(rnd, "narrow")}${sep}${clock(rnd)}${offset}`;
}

function time(rnd: Rnd, flavour: Flavour): string {
  if (flavour === "wide" && rnd() < 0.05) return pick(rnd, ["12:00:00Z", "12:00:00+01:00", "12:00:00.5-11:30"]);
  if (flavour === "invalid" && rnd() < 0.05) return pick(rnd, ["24:00:00", "12:00", "12:00:00.", "12:60:00"]);
  return clock(rnd);
}

function randomCsv(rnd: Rnd, rows: number, flavour: Flavour): string {
  const zone = pick(rnd, ["z", "local", ...(flavour === "narrow" ? [] : (["mixed"] as const))] as const);
  // Columns of a few values each keep a dictionary: their keys at the edges (-0 beside 0, NaN, past ±2^53).
  const days = Array.from({ length: 1 + Math.floor(rnd() * 40) }, () => date(rnd, "narrow"));
  const doubles = ["-0", "0", "0.0", "-0.0", "NaN", "INF", "-INF", "1.5", "-2.25", "1e-7", ...Array.from({ length: Math.floor(rnd() * 20) }, () => number(rnd, "narrow"))];
  const integers = ["0", "-0", "9007199254740991", "9007199254740992", "9007199254740993", "-9007199254740992", "-9007199254740993", "9223372036854775807", "-9223372036854775808", "42"];
  const instants = Array.from({ length: 1 + Math.floor(rnd() * 30) }, () => datetime(rnd, zone === "mixed" ? "z" : zone, "narrow"));
  const nulls = rnd() * 0.4;
  const lines: string[] = [];
  for (let r = 0; r < rows; r++) {
    const cells = [integer(rnd, flavour), number(rnd, flavour), date(rnd, flavour), datetime(rnd, zone, flavour), time(rnd, flavour), String(Math.floor(rnd() * 20)), pick(rnd, days), pick(rnd, doubles), pick(rnd, integers), pick(rnd, instants)].map((cell) => (rnd() < nulls ? "" : cell));
    // Now and then a short record (its missing cells read as empty), a quoted cell, or (of no type) one holding a doubled quote.
    const kept = rnd() < 0.03 ? cells.slice(0, 1 + Math.floor(rnd() * 9)) : cells;
    lines.push(kept.map((cell) => (rnd() < 0.05 ? `"${cell}"` : flavour === "invalid" && rnd() < 0.01 ? `"${cell}"""` : cell)).join(","));
  }
  return lines.join("\n") + "\n";
}

interface Written {
  bytes: Buffer;
  metadata: unknown;
  summary: Buffer;
  kinds: ColumnKind[] | null;
}

function write(schema: TableSchema, csv: Uint8Array, kinds: readonly ColumnKind[], options: { rowGroupRows: number; pageRows: number; pageBytes: number }, statistics: boolean, rnd: Rnd): Written {
  const summary = createSummaries(SCHEMA);
  const writer = new PartWriter(schema, kinds, { ...options, ...(statistics ? { sinks: columnFeeds(summary, SCHEMA) } : {}) });
  const decoder = new CellDecoder({ midFile: true, cells: 1 + Math.floor(rnd() * 3000) });
  const drain = () => {
    for (let batch = decoder.take(); batch !== null; batch = decoder.take()) writer.addBatch(batch);
  };
  for (let at = 0; at < csv.length; ) {
    const to = Math.min(csv.length, at + 1 + Math.floor(rnd() * 30_000));
    decoder.push(csv.subarray(at, to));
    drain();
    at = to;
  }
  decoder.finish();
  drain();
  const result = writer.finish();
  return { bytes: Buffer.concat(writer.takeBytes()), metadata: result.ok ? result.metadata : null, summary: Buffer.from(encodeSummary(summary)), kinds: result.ok ? null : result.kinds };
}

/** `cell` alone in a part of one `type` field, through the kernel or (perCell) byte-cells.ts's readers: the part's bytes and metadata, or the kinds it needs. */
function one(type: "integer" | "number" | "date" | "datetime" | "time", cell: string, perCell: boolean): string {
  const schema: TableSchema = { fields: [{ name: "v", type }], missingValues: perCell ? ["", "\u0001"] : [""] };
  let kinds = startKinds(schema);
  for (;;) {
    const writer = new PartWriter(schema, kinds);
    writer.addRows([[cell], [cell]]);
    const result = writer.finish();
    if (!result.ok) {
      kinds = result.kinds;
      continue;
    }
    return JSON.stringify({ kinds, metadata: result.metadata, bytes: Buffer.concat(writer.takeBytes()).toString("base64") });
  }
}

describe("typed cells read by the kernel", () => {
  it("read each edge spelling, alone, as the per-cell readers do", () => {
    const rnd = random(99);
    const cells: [Parameters<typeof one>[0], string][] = [];
    for (let i = 0; i < 400; i++) {
      cells.push(["integer", integer(rnd, "invalid")], ["number", number(rnd, "invalid")], ["date", date(rnd, "invalid")]);
      cells.push(["datetime", datetime(rnd, "mixed", "invalid")], ["time", time(rnd, "invalid")]);
    }
    const leap = ["23:59:60", "23:59:60.5", "2016-12-31T23:59:60Z", "2016-12-31T23:59:60.999999+01:00", "1969-12-31T23:59:59.9999999Z", "0000-01-01T00:00:00Z", "0000-01-01 00:00:00"];
    for (const cell of leap) cells.push([cell.length > 15 ? "datetime" : "time", cell]);
    for (const [type, cell] of cells) expect(one(type, cell, false), `${type} ${JSON.stringify(cell)}`).toBe(one(type, cell, true));
  });

  it("write the part the per-cell readers write, edges and widenings included", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rnd = random(seed);
      const flavour: Flavour = seed % 4 === 0 ? "invalid" : seed % 2 === 0 ? "wide" : "narrow";
      const csv = new TextEncoder().encode(randomCsv(rnd, 1 + Math.floor(rnd() * 6000), flavour));
      const options = { rowGroupRows: 200 + Math.floor(rnd() * 5000), pageRows: pick(rnd, [7, 64, 1024]), pageBytes: pick(rnd, [9, 200, 1 << 16]) };
      // The same chunking on both sides, so a difference is the reading's.
      const chunking = Math.floor(rnd() * 1e9);
      let kinds: ColumnKind[] = startKinds(SCHEMA);
      for (let attempt = 0; ; attempt++) {
        const expected = write(PER_CELL, csv, kinds, options, flavour !== "invalid", random(chunking));
        const got = write(SCHEMA, csv, kinds, options, flavour !== "invalid", random(chunking));
        expect(got.kinds, `seed ${seed}`).toEqual(expected.kinds);
        if (expected.kinds !== null) {
          expect(attempt, `seed ${seed}: kinds only widen`).toBeLessThan(SCHEMA.fields.length * 3);
          kinds = expected.kinds;
          continue;
        }
        expect(got.metadata, `seed ${seed}`).toEqual(expected.metadata);
        expect(got.bytes.equals(expected.bytes), `seed ${seed}: the part's bytes`).toBe(true);
        expect(got.summary.equals(expected.summary), `seed ${seed}: the statistics summary`).toBe(true);
        if (flavour === "narrow") expect(kinds.slice(0, 3), `seed ${seed}: narrow columns keep their kinds`).toEqual(["int64", "double", "date"]);
        break;
      }
    }
  });
});
