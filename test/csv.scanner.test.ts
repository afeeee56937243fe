// Rules of docs/api.md#writes for the streaming CSV scanner, each checked under several chunkings so a
// quote, CRLF or UTF-8 sequence split across chunks behaves exactly like an unsplit one.
import { describe, expect, it } from "vitest";
import {
  CsvError,
  CsvScanner,
  MAX_BLANK_RUN_BYTES,
  MAX_BLANK_RUN_SWITCHES,
  type CsvLimits,
  type CsvMode,
  type CsvStats,
} from "../src/csv/index.ts";

const LIMITS: CsvLimits = { maxColumns: 100, maxFieldBytes: 1000, maxHeaderBytes: 1000 };
const TABLE: CsvMode = { kind: "table" };
const CHUNKINGS = [0, 1, 2, 3, 5] as const; // 0 = the whole input in one chunk
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

type Input = string | number[];
interface Options {
  mode?: CsvMode;
  limits?: Partial<CsvLimits>;
  /** Chunk sizes to try instead of CHUNKINGS (for long inputs). */
  sizes?: readonly number[];
}

function toBytes(input: Input): Uint8Array {
  return typeof input === "string" ? encoder.encode(input) : Uint8Array.from(input);
}

function run(input: Input, options: Options, size: number): { out: string; stats: CsvStats } {
  const bytes = toBytes(input);
  const scanner = new CsvScanner(options.mode ?? TABLE, { ...LIMITS, ...options.limits });
  const parts: Uint8Array[] = [];
  const step = size === 0 ? Math.max(1, bytes.length) : size;
  for (let at = 0; at < bytes.length; at += step) parts.push(scanner.push(bytes.slice(at, at + step)).slice());
  parts.push(scanner.finish());
  return { out: parts.map((p) => decoder.decode(p, { stream: true })).join("") + decoder.decode(), stats: scanner.stats };
}

/** Scans `input` under every chunking; all must agree. */
function scan(input: Input, options: Options = {}): { out: string; stats: CsvStats } {
  const first = run(input, options, 0);
  for (const size of options.sizes ?? CHUNKINGS.slice(1)) expect(run(input, options, size)).toEqual(first);
  return first;
}

/** Scans `input` under every chunking; all must fail with the same error, which is returned as data. */
function fail(input: Input, options: Options = {}): ReturnType<CsvError["toJSON"]> {
  const errors = [0, ...(options.sizes ?? CHUNKINGS.slice(1))].map((size) => {
    try {
      run(input, options, size);
    } catch (err: unknown) {
      if (err instanceof CsvError) return err.toJSON();
      throw err;
    }
    throw new Error(`no error with chunk size ${size}`);
  });
  for (const err of errors.slice(1)) expect(err).toEqual(errors[0]);
  return errors[0]!;
}

describe("table mode", () => {
  it("passes a plain table through and reports its shape", () => {
    const input = "name,age\nAda,36\nBob,7\n";
    expect(scan(input)).toEqual({
      out: input,
      stats: { header: ["name", "age"], firstRow: null, columns: 2, rows: 2, bytes: 22, endsWithNewline: true, eol: "\n" },
    });
  });

  it("accepts a header without data rows, and content without a final line break", () => {
    expect(scan("a,b").stats).toMatchObject({ header: ["a", "b"], rows: 0, endsWithNewline: false });
    expect(scan("a,b\n1,2")).toMatchObject({ out: "a,b\n1,2", stats: { rows: 1, endsWithNewline: false } });
  });

  it("accepts CRLF line ends and reports the first one seen", () => {
    const input = "a,b\r\n1,2\r\n3,4\n";
    expect(scan(input)).toMatchObject({ out: input, stats: { rows: 2, eol: "\r\n" } });
    expect(scan("a,b\n1,2\r\n").stats.eol).toBe("\n");
  });

  it("decodes quoted fields holding commas, CR, LF and doubled quotes", () => {
    const input = '"na,me","say ""hi""","a\r\nb"\n"x\ny",",","\r\n"\n"",,""""\n';
    expect(scan(input)).toMatchObject({
      out: input,
      stats: { header: ["na,me", 'say "hi"', "a\r\nb"], columns: 3, rows: 2 },
    });
  });

  it("decodes multi-byte UTF-8 in the header and keeps a U+FEFF inside a cell", () => {
    expect(scan("café,😀,\uFEFFx\n1,2,3\n").stats.header).toEqual(["café", "😀", "\uFEFFx"]);
  });

  it("passes chunks on without copying them", () => {
    const scanner = new CsvScanner(TABLE, LIMITS);
    scanner.push(encoder.encode("a,b\n"));
    const chunk = encoder.encode("1,2\n3,4\n");
    const out = scanner.push(chunk);
    expect(out.buffer).toBe(chunk.buffer);
    expect(out.length).toBe(chunk.length);
  });

  it("counts empty fields", () => {
    expect(scan("a,b,c\n,,\n").stats).toMatchObject({ header: ["a", "b", "c"], rows: 1 });
  });
});

describe("byte order mark", () => {
  it("drops a leading BOM from the output and the header", () => {
    expect(scan("\uFEFFa,b\n1,2\n")).toMatchObject({ out: "a,b\n1,2\n", stats: { header: ["a", "b"], bytes: 8 } });
  });

  it("keeps content that merely starts like a BOM", () => {
    expect(scan("\uFF0Ca,b\n").out).toBe("\uFF0Ca,b\n");
    expect(scan("\uFEC0,b\n").out).toBe("\uFEC0,b\n");
  });

  it("treats a lone BOM as empty input", () => {
    expect(fail("\uFEFF").code).toBe("empty_csv");
    expect(fail([0xef, 0xbb]).code).toBe("invalid_csv");
  });
});

describe("blank lines", () => {
  it("drops blank lines at the end, keeping the line break of the last record", () => {
    expect(scan("a,b\n1,2\n\n\n")).toMatchObject({ out: "a,b\n1,2\n", stats: { rows: 1, endsWithNewline: true } });
    expect(scan("a,b\r\n1,2\r\n\r\n\r\n").out).toBe("a,b\r\n1,2\r\n");
    expect(scan("a,b\n1,2\r\n\n\r\n\n").out).toBe("a,b\n1,2\r\n");
    expect(scan("a\n1\n\n").stats.rows).toBe(1);
  });

  it("keeps blank lines before a record as records of one empty field", () => {
    const input = "a\n1\n\n\r\n\n\r\n2\n\n";
    expect(scan(input)).toMatchObject({ out: "a\n1\n\n\r\n\n\r\n2\n", stats: { rows: 6 } });
  });

  it("rejects a blank line in the middle of a table with several columns", () => {
    expect(fail("a,b\n1,2\n\n\n3,4\n")).toMatchObject({ code: "invalid_csv", row: 3, expected: 2, found: 1 });
    expect(fail("a,b\r\n1,2\r\n\r\n3,4\r\n")).toMatchObject({ code: "invalid_csv", row: 3 });
  });

  it("rejects blank lines before the header, whatever the column count", () => {
    for (const input of ["\na,b\n1,2\n", "\r\n\n1\n", "\n\nh\n1\n", "\uFEFF\nh\n"]) {
      expect(fail(input), JSON.stringify(input)).toMatchObject({ code: "invalid_csv", row: 1 });
    }
  });

  it("treats input of only blank lines as having no header", () => {
    for (const input of ["", "\n", "\r\n\r\n", "\uFEFF\n\n"]) expect(fail(input).code).toBe("empty_csv");
  });

  it("bounds how often line endings may switch inside a held run", () => {
    const most = `${"\n\r\n".repeat(MAX_BLANK_RUN_SWITCHES / 2)}\n`; // MAX switches, MAX + 1 lines
    expect(scan(`a\n${most}b\n`)).toMatchObject({ out: `a\n${most}b\n`, stats: { rows: MAX_BLANK_RUN_SWITCHES + 2 } });
    expect(fail(`a\n${most}\r\nb\n`)).toMatchObject({ code: "csv_limit_exceeded", limit: "blankLineRun" });
    expect(fail(`a\n${most}\r\n`)).toMatchObject({ code: "csv_limit_exceeded", limit: "blankLineRun" });
  });

  it("bounds the bytes of blank lines that a record follows, not of those at the end", () => {
    const longest = "\n".repeat(MAX_BLANK_RUN_BYTES);
    const sizes = [1000, 65536];
    expect(scan(`a\n${longest}b`, { sizes }).stats.rows).toBe(MAX_BLANK_RUN_BYTES + 1);
    expect(fail(`a\n${longest}\nb`, { sizes })).toMatchObject({ code: "csv_limit_exceeded", limit: "blankLineRun" });
    expect(scan(`a\n${longest}\n`, { sizes })).toMatchObject({ out: "a\n", stats: { rows: 0 } });
  });
});

describe("invalid_csv", () => {
  it("reports a ragged row with its record number and field counts", () => {
    expect(fail("a,b\n1,2\n3\n")).toMatchObject({ code: "invalid_csv", row: 3, expected: 2, found: 1 });
    expect(fail("a,b\n1,2,3\n")).toMatchObject({ code: "invalid_csv", row: 2, expected: 2, found: 3 });
    expect(fail("a,b\n1,2\n3,4,5")).toMatchObject({ code: "invalid_csv", row: 3, expected: 2, found: 3 });
  });

  it("numbers records, not lines", () => {
    expect(fail('a,b\n"x\ny",1\n2\n')).toMatchObject({ row: 3, found: 1 });
  });

  it("rejects unbalanced quotes in quoted fields", () => {
    expect(fail('a,b\n"x"y,1\n')).toMatchObject({ code: "invalid_csv", row: 2 });
    expect(fail('a,b\n1,"x" \n')).toMatchObject({ code: "invalid_csv", row: 2 });
    expect(fail('a,b\n1,"\n')).toMatchObject({ code: "invalid_csv", row: 2 });
    expect(fail('a,b\n1,"open\n')).toMatchObject({ code: "invalid_csv", row: 2 });
    expect(fail('"a')).toMatchObject({ code: "invalid_csv", row: 1 });
  });

  it("rejects a CR that is not followed by LF", () => {
    expect(fail("a,b\r1,2\n")).toMatchObject({ code: "invalid_csv", row: 1 });
    expect(fail("a,b\n1,2\r3,4\n")).toMatchObject({ code: "invalid_csv", row: 2 });
    expect(fail("a,b\r")).toMatchObject({ code: "invalid_csv", row: 1 });
    expect(fail("a,b\n\r")).toMatchObject({ code: "invalid_csv", row: 2 });
    expect(fail("a,b\n\rx")).toMatchObject({ code: "invalid_csv", row: 2 });
  });

  it("rejects NUL bytes anywhere", () => {
    for (const input of ["a,b\n1,\0\n", '"a\0",b\n', "a,b\n\0", "a,\0", "ab\0c\n"]) {
      expect(fail(input).code).toBe("invalid_csv");
    }
    expect(fail("a,b\n1,2\n3,x\0\n").row).toBe(3);
  });

  it("rejects ill-formed UTF-8, also when split across chunks", () => {
    const header = [0x61, 0x2c, 0x62, 0x0a];
    const cases = [
      [0x80], // stray continuation
      [0xc0, 0xaf], // overlong
      [0xe0, 0x80, 0x80], // overlong
      [0xed, 0xa0, 0x80], // surrogate
      [0xf4, 0x90, 0x80, 0x80], // beyond U+10FFFF
      [0xf8, 0x80],
      [0xf0, 0x9f, 0x98, 0x2c], // truncated, then a comma
      [0x22, 0xc3, 0x22], // truncated inside quotes
      [0x78, 0xe2, 0x82], // truncated at end of input
    ];
    for (const bad of cases) {
      expect(fail([...header, 0x31, 0x2c, ...bad]), bad.join(" ")).toMatchObject({ code: "invalid_csv", row: 2 });
    }
  });

  it("accepts the extremes of well-formed UTF-8", () => {
    const input = "\u0080\u07ff\u0800\uffff,\u{10000}\u{10ffff}\ud7ff\ue000\n";
    expect(scan(input).out).toBe(input);
  });
});

describe("rows mode", () => {
  const rows = (header = ["a", "b", "c"]): Options => ({ mode: { kind: "rows", expectedColumns: header.length, header } });

  it("accepts data rows and keeps the first one", () => {
    expect(scan("\uFEFF1,2,3\n4,5,6\n", rows())).toEqual({
      out: "1,2,3\n4,5,6\n",
      stats: { header: null, firstRow: ["1", "2", "3"], columns: 3, rows: 2, bytes: 12, endsWithNewline: true, eol: "\n" },
    });
  });

  it("reports the first row with another field count", () => {
    expect(fail("1,2,3\n4,5\n6\n", rows())).toMatchObject({ code: "column_count_mismatch", row: 2, expected: 3, found: 2 });
    expect(fail("1,2\n", rows())).toMatchObject({ code: "column_count_mismatch", row: 1, expected: 3, found: 2 });
    expect(fail("1,2,3\n\n4,5,6\n", rows())).toMatchObject({ code: "column_count_mismatch", row: 2, found: 1 });
    expect(fail("\n4,5,6\n", rows())).toMatchObject({ code: "column_count_mismatch", row: 1, found: 1 });
  });

  it("rejects a first row that repeats the header, trimmed and case-insensitively", () => {
    expect(fail(" A ,b,\"C \"\n1,2,3\n", rows(["a", "B", "c"]))).toMatchObject({ code: "header_row_in_append", row: 1 });
    expect(scan("a,b,x\n", rows()).stats.rows).toBe(1);
    expect(scan("1,2,3\na,b,c\n", rows()).stats.rows).toBe(2);
  });

  it("rejects an append without data rows", () => {
    for (const input of ["", "\n\n", "\uFEFF", "\r\n"]) expect(fail(input, rows()).code).toBe("empty_append");
  });

  it("keeps blank lines before a record when there is one column", () => {
    expect(scan("\n\nx\n\n", rows(["a"]))).toMatchObject({ out: "\n\nx\n", stats: { rows: 3, firstRow: [""] } });
  });
});

describe("limits", () => {
  it("bounds the header's field count", () => {
    expect(scan("a,b,c\n", { limits: { maxColumns: 3 } }).stats.columns).toBe(3);
    expect(fail("a,b,c,d\n", { limits: { maxColumns: 3 } })).toMatchObject({
      code: "csv_limit_exceeded",
      limit: "maxColumns",
      max: 3,
      row: 1,
    });
  });

  it("bounds every field's raw size, quotes included", () => {
    const limits = { maxFieldBytes: 5 };
    expect(scan('a,b\n12345,"123"\n', { limits }).stats.rows).toBe(1);
    expect(fail("a,b\n123456,1\n", { limits })).toMatchObject({ code: "csv_limit_exceeded", limit: "maxFieldBytes", row: 2 });
    expect(fail('a,b\n1,"1234"', { limits })).toMatchObject({ limit: "maxFieldBytes", row: 2 });
    expect(fail(`a,b\n1,"${"x".repeat(50)}`, { limits })).toMatchObject({ limit: "maxFieldBytes", row: 2 });
  });

  it("bounds the header record's size", () => {
    const limits = { maxHeaderBytes: 7 };
    expect(scan('abc,"d"\r\n123456789,1\n', { limits }).stats.header).toEqual(["abc", "d"]);
    expect(fail("abc,defg\n", { limits })).toMatchObject({ code: "csv_limit_exceeded", limit: "maxHeaderBytes", row: 1 });
    expect(fail("abcdefgh", { limits })).toMatchObject({ limit: "maxHeaderBytes" });
  });

  it("only stops keeping a long first appended row", () => {
    const mode: CsvMode = { kind: "rows", expectedColumns: 2, header: ["a", "b"] };
    expect(scan("1234567,x\n", { mode, limits: { maxHeaderBytes: 4 } }).stats).toMatchObject({ firstRow: null, rows: 1 });
    expect(scan("1,2\n", { mode, limits: { maxColumns: 1 } }).stats).toMatchObject({ firstRow: null, rows: 1 });
  });
});

describe("errors", () => {
  it("are plain data, and the scanner keeps failing after one", () => {
    const scanner = new CsvScanner(TABLE, LIMITS);
    let caught: unknown;
    try {
      scanner.push(encoder.encode("a,b\n1\n"));
    } catch (err: unknown) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(CsvError);
    expect(JSON.parse(JSON.stringify(caught))).toEqual({
      code: "invalid_csv",
      message: "row 2 has 1 field; the header has 2",
      row: 2,
      expected: 2,
      found: 1,
    });
    expect(() => scanner.push(encoder.encode("x"))).toThrow(caught as CsvError);
    expect(() => scanner.finish()).toThrow(caught as CsvError);
  });
});

describe("record ends (where ingest may cut a part)", () => {
  /** Every (recordEnd, rowsAtRecordEnd) seen after a push, one byte at a time. */
  function ends(input: string, mode: CsvMode = TABLE): [number, number][] {
    const scanner = new CsvScanner(mode, LIMITS);
    const seen: [number, number][] = [];
    for (const byte of toBytes(input)) {
      scanner.push(Uint8Array.of(byte));
      const last = seen[seen.length - 1];
      if (scanner.recordEnd >= 0 && last?.[0] !== scanner.recordEnd) seen.push([scanner.recordEnd, scanner.rowsAtRecordEnd]);
    }
    scanner.finish();
    return seen;
  }

  it("is the output offset just past each record's line break, with the data rows up to it", () => {
    expect(ends("h\r\n1\r\n2")).toEqual([[3, 0], [6, 1]]);
    expect(ends('h,x\n1,"a\nb"\n2,c\n')).toEqual([[4, 0], [12, 1], [16, 2]]);
    expect(ends("1\n2\n", { kind: "rows", expectedColumns: 1, header: ["h"] })).toEqual([[2, 1], [4, 2]]);
  });

  it("counts offsets after a BOM, and not at blank lines, which count as rows once a record follows", () => {
    expect(ends("\uFEFFh\n1\n")).toEqual([[2, 0], [4, 1]]);
    expect(ends("h\n1\n\n\n2\n\n")).toEqual([[2, 0], [4, 1], [8, 4]]);
  });
});
