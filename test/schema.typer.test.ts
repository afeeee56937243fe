// Column typing inside the CSV scan (docs/column-types.md): the byte classifier reads cells as the string
// predicates do, the typer's schema does not depend on where chunks split cells, declared types
// are held per cell with the right row and column, and appends are held to a stored schema.
import { describe, expect, it } from "vitest";
import { CsvScanner, type CsvMode } from "../src/csv/index.ts";
import { BOOLEAN, cellClasses, DATE, DATETIME, DEFAULT_DATETIME, INTEGER, NUMBER, PADDED_INTEGER, PADDED_NUMBER } from "../src/schema/cell-classes.ts";
import { ColumnTyper, type TypingPlan } from "../src/schema/column-typer.ts";
import { isBoolean, isDate, isDatetime, isDefaultDatetime, isFieldInteger, isFieldNumber, isInteger, isNumber } from "../src/schema/lexical.ts";
import { SchemaError } from "../src/schema/schema-error.ts";
import type { TableSchema } from "../src/schema/table-schema.ts";

const LIMITS = { maxColumns: 1000, maxFieldBytes: 1 << 20, maxHeaderBytes: 1 << 20 };

function seeded(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (x * 1664525 + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

function typeCsv(csv: string, plan: TypingPlan = { kind: "infer", declared: null }, chunk = 0, mode: CsvMode = { kind: "table" }): TableSchema {
  const bytes = new TextEncoder().encode(csv);
  const typer = new ColumnTyper(plan);
  const scanner = new CsvScanner(mode, LIMITS, typer);
  const random = seeded(chunk);
  for (let at = 0; at < bytes.length; ) {
    const size = chunk === 0 ? bytes.length : 1 + Math.floor(random() * 7);
    scanner.push(bytes.slice(at, at + size));
    at += size;
  }
  scanner.finish();
  return typer.schema();
}

function failure(run: () => unknown): SchemaError {
  try {
    run();
  } catch (error: unknown) {
    if (error instanceof SchemaError) return error;
    throw error;
  }
  throw new Error("expected a SchemaError");
}

const SAMPLES = [
  "", "0", "00", "007", "-0", "+1", "-12", "1.", ".5", ".", "+", "-", "1e5", "1E-5", "1e", "0e3", "00.5", "0.5", "-0.25",
  "01234", "-007", "+007", "00e3", "-00.5", "007.", "00x",
  "NaN", "INF", "-INF", "+INF", "nan", "inf", "true", "TRUE", "True", "tRuE", "false", "FALSE", "fAlSe", "yes", "1,5",
  "2024-02-29", "2023-02-29", "2024-13-01", "2024-1-01", "2024-12-31", "2024-05-01T10:00:00Z", "2024-05-01 10:00:00",
  "2024-05-01t10:00:00.5+02:00", "2024-05-01T24:00:00Z", "2024-05-01T10:00:00+25:00", "2024-05-01T10:00", "12345678901234567890",
  "é", "1 2", "0x10", "2024-05-01T10:00:00z", "2024-05-01t10:00:00Z", "2024-05-01T10:00:60Z", "2024-05-01T10:60:00Z",
  "2024-05-01T10:00:00.", "2024-05-01T10:00:00.123456789-07:30", "2024-05-01T10:00:00+2:00", "2024-05-01T10:00:00Z ",
  "2024-02-30T10:00:00Z", "2024-05-01 10:00:00+23:59", "2024-05-01X10:00:00",
];

describe("cellClasses", () => {
  it("reads every sample as the string predicates do", () => {
    for (const text of SAMPLES.filter((s) => s !== "")) {
      const bytes = new TextEncoder().encode(text);
      const bits = cellClasses(bytes, 0, bytes.length);
      expect([text, Boolean(bits & INTEGER)]).toEqual([text, isInteger(text)]);
      expect([text, Boolean(bits & NUMBER)]).toEqual([text, isNumber(text)]);
      expect([text, Boolean(bits & BOOLEAN)]).toEqual([text, isBoolean(text)]);
      expect([text, Boolean(bits & DATE)]).toEqual([text, isDate(text)]);
      expect([text, Boolean(bits & DATETIME)]).toEqual([text, isDatetime(text)]);
      expect([text, Boolean(bits & DEFAULT_DATETIME)]).toEqual([text, isDatetime(text) && isDefaultDatetime(text)]);
      expect([text, Boolean(bits & (INTEGER | PADDED_INTEGER))]).toEqual([text, isFieldInteger(text)]);
      expect([text, Boolean(bits & (NUMBER | PADDED_NUMBER))]).toEqual([text, isFieldNumber(text)]);
    }
  });
});

describe("ColumnTyper in the scanner", () => {
  const csv = [
    'id,zip,price,ok,day,at,note',
    '1,01234,1.5,true,2024-01-01,2024-01-01T00:00:00Z,"a ""quoted"" note"',
    '2,99999,-2,FALSE,2024-02-29,2024-01-01T00:00:01Z,"multi',
    'line"',
    '3,12345,,,2024-03-01,,plain',
    '',
  ].join("\r\n");

  it("infers every column whatever the chunk boundaries", () => {
    const whole = typeCsv(csv);
    expect(whole.fields.map((f) => [f.name, f.type])).toEqual([
      ["id", "integer"], ["zip", "string"], ["price", "number"], ["ok", "boolean"], ["day", "date"], ["at", "datetime"], ["note", "string"],
    ]);
    for (let seed = 1; seed <= 40; seed++) expect(typeCsv(csv, undefined, seed)).toEqual(whole);
  });

  it("a quoted number is a number; a doubled quote makes text", () => {
    expect(typeCsv('a,b\n"12","1""2"\n').fields.map((f) => f.type)).toEqual(["integer", "string"]);
  });

  it("a type broken only in the last row of a large file", () => {
    const rows = ["n"];
    for (let i = 0; i < 100_000; i++) rows.push(String(i));
    rows.push("x");
    expect(typeCsv(rows.join("\n")).fields[0]!.type).toBe("string");
  });

  it("booleans in unusual spellings are named for strict readers", () => {
    expect(typeCsv("b\ntRuE\nFALSE\n").fields[0]).toEqual({
      name: "b",
      type: "boolean",
      trueValues: ["true", "True", "TRUE", "tRuE"],
      falseValues: ["false", "False", "FALSE"],
    });
  });

  it("declared types: used as given, checked per cell with row and column", () => {
    const plan: TypingPlan = { kind: "infer", declared: { fields: [{ name: "v", type: "number", decimalChar: "," }], missingValues: ["", "NA"] } };
    expect(typeCsv('k,v\n1,"1,5"\n2,NA\n', plan)).toEqual({
      fields: [{ name: "k", type: "integer" }, { name: "v", type: "number", decimalChar: "," }],
      missingValues: ["", "NA"],
    });
    const broken = failure(() => typeCsv("k,v\n1,2\n2,x\n", { kind: "infer", declared: { fields: [{ name: "v", type: "integer" }] } }, 3));
    expect(broken.code).toBe("schema_mismatch");
    expect(broken.details).toEqual({ row: 3, column: "v", value: "x", expected: "integer" });
    const required = failure(() => typeCsv("k\n1\n\n2\n", { kind: "infer", declared: { fields: [{ name: "k", type: "integer", constraints: { required: true } }] } }));
    expect(required.details).toMatchObject({ row: 3, column: "k", expected: "integer (required)" });
  });

  it("a declared integer takes leading zeros (01234 is 1234); inference still keeps such a column text", () => {
    const declared = { fields: [{ name: "zip", type: "integer" as const }, { name: "x", type: "number" as const }] };
    for (const chunk of [0, 3]) {
      expect(typeCsv("zip,x,code\n01234,007.5,01234\n-007,1,1\n+12,00,2\n", { kind: "infer", declared }, chunk).fields).toEqual([
        { name: "zip", type: "integer" },
        { name: "x", type: "number" },
        { name: "code", type: "string" },
      ]);
    }
    const schema: TableSchema = { fields: [{ name: "n", type: "integer" }], missingValues: [""] };
    expect(typeCsv("007\n", { kind: "check", schema }, 0, { kind: "rows", expectedColumns: 1, header: ["n"] })).toBe(schema);
  });

  it("a required cell that is a declared missing value is reported as written, not as the empty string", () => {
    const declared = { fields: [{ name: "k", type: "integer" as const, constraints: { required: true } }], missingValues: ["", "NA"] };
    for (const chunk of [0, 3]) {
      const error = failure(() => typeCsv("k\n1\nNA\n", { kind: "infer", declared }, chunk));
      expect(error.details).toEqual({ row: 3, column: "k", value: "NA", expected: "integer (required)" });
    }
    const schema: TableSchema = { fields: [{ name: "k", type: "integer", constraints: { required: true } }], missingValues: ["", "NA"] };
    const appended = failure(() => typeCsv("1\nNA\n", { kind: "check", schema }, 0, { kind: "rows", expectedColumns: 1, header: ["k"] }));
    expect(appended.details).toMatchObject({ row: 2, value: "NA" });
  });

  it("a declared name not in the header is invalid_schema at row 1; a carried one is dropped", () => {
    const plan: TypingPlan = { kind: "infer", declared: { fields: [{ name: "gone", type: "integer" }] } };
    expect(failure(() => typeCsv("a\n1\n", plan)).code).toBe("invalid_schema");
    expect(typeCsv("a\n1\n", { ...plan, carried: true }).fields).toEqual([{ name: "a", type: "integer" }]);
  });

  it("appended rows are held to the stored schema", () => {
    const schema: TableSchema = { fields: [{ name: "n", type: "integer" }, { name: "s", type: "string" }], missingValues: [""] };
    const rows: CsvMode = { kind: "rows", expectedColumns: 2, header: ["n", "s"] };
    expect(typeCsv("1,a\n,b\n", { kind: "check", schema }, 0, rows)).toBe(schema);
    const broken = failure(() => typeCsv("1,a\n2.5,b\n", { kind: "check", schema }, 0, rows));
    expect(broken.details).toEqual({ row: 2, column: "n", value: "2.5", expected: "integer" });
  });

  it("values in errors are cut to 64 characters", () => {
    const long = "x".repeat(100);
    const error = failure(() => typeCsv(`n\n${long}\n`, { kind: "infer", declared: { fields: [{ name: "n", type: "integer" }] } }));
    expect(error.details.value).toHaveLength(64);
  });
});
