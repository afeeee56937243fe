// docs/api.md#writes: a file that looks separated by `;` or tab is refused with a hint that names the
// separator (`separator` member), while a genuine one-column CSV is still accepted.
import { describe, expect, it } from "vitest";
import { CsvError, CsvScanner, type CsvMode } from "../src/csv/index.ts";

const LIMITS = { maxColumns: 100, maxFieldBytes: 1000, maxHeaderBytes: 1000 };
const TABLE: CsvMode = { kind: "table" };
const encoder = new TextEncoder();

function outcome(input: string, mode: CsvMode = TABLE, size = 3): ReturnType<CsvError["toJSON"]> | { rows: number; header: string[] | null } {
  const bytes = encoder.encode(input);
  const scanner = new CsvScanner(mode, LIMITS);
  try {
    for (let at = 0; at < bytes.length; at += size) scanner.push(bytes.slice(at, at + size));
    scanner.finish();
  } catch (error: unknown) {
    if (error instanceof CsvError) return error.toJSON();
    throw error;
  }
  return { rows: scanner.stats.rows, header: scanner.stats.header };
}

describe("separator hints on create and replace", () => {
  it("refuses a header that splits on semicolons, naming the separator", () => {
    for (const input of ["name;price\nfoo;1,5\n", "a;b;c\n1;2;3\n", "a;b\n", "name;price\r\nfoo;1\r\n"]) {
      expect(outcome(input), JSON.stringify(input)).toMatchObject({ code: "invalid_csv", row: 1, separator: ";" });
    }
  });

  it("refuses a TSV instead of reading it as one column", () => {
    for (const input of ["a\tb\n1\t2\n", "id\tname\tnote\n1\tx\ty z\n", "a\tb;c\n"]) {
      expect(outcome(input), JSON.stringify(input)).toMatchObject({ code: "invalid_csv", row: 1, separator: "\t" });
    }
    expect(outcome("a;b;c\td\n")).toMatchObject({ separator: ";" });
  });

  it("names the separator when quoted header fields are joined by it", () => {
    expect(outcome('"name";"price"\n"x";"1"\n')).toMatchObject({ code: "invalid_csv", row: 1, separator: ";" });
    expect(outcome('"name"\t"price"\n')).toMatchObject({ code: "invalid_csv", row: 1, separator: "\t" });
  });

  it("accepts a genuine one-column CSV, and separators inside values or quoted header cells", () => {
    expect(outcome("value\n1;2\n3\t4\n")).toEqual({ rows: 2, header: ["value"] });
    expect(outcome('"a;b"\n1\n')).toEqual({ rows: 1, header: ["a;b"] });
    expect(outcome("a;b,c\n1,2\n")).toEqual({ rows: 1, header: ["a;b", "c"] });
    expect(outcome("name\nfoo\n")).toEqual({ rows: 1, header: ["name"] });
  });

  it("names the separator when a header that holds a comma splits better on it", () => {
    const tsv = "name\tcity, country\tpop\nAda\tLondon, UK\t9\nBo\tLima\t10\n";
    expect(outcome(tsv)).toMatchObject({ code: "invalid_csv", row: 3, expected: 2, found: 1, separator: "\t" });
    expect(outcome("a;b,c\n1,2,3\n")).toMatchObject({ code: "invalid_csv", row: 2, expected: 2, found: 3 });
    expect(outcome("a;b,c\n1,2,3\n")).not.toHaveProperty("separator");
  });

  it("only hints in the first record; later rows get the usual errors", () => {
    expect(outcome('a,b\n"x";"y"\n')).toMatchObject({ code: "invalid_csv", row: 2 });
    expect(outcome('a,b\n"x";"y"\n')).not.toHaveProperty("separator");
  });
});

describe("separator hints on append", () => {
  const rows = (header: string[]): CsvMode => ({ kind: "rows", expectedColumns: header.length, header });

  it("adds the separator to a first row of one field where several are expected", () => {
    expect(outcome("1;2;3\n", rows(["a", "b", "c"]))).toMatchObject({ code: "column_count_mismatch", row: 1, expected: 3, found: 1, separator: ";" });
    expect(outcome("1\t2\n", rows(["a", "b"]))).toMatchObject({ code: "column_count_mismatch", separator: "\t" });
    expect(outcome('"1";"2"\n', rows(["a", "b"]))).toMatchObject({ code: "invalid_csv", row: 1, separator: ";" });
  });

  it("accepts such values in a one-column dataset", () => {
    expect(outcome("1;2\n3\t4\n", rows(["v"]))).toMatchObject({ rows: 2 });
  });
});
