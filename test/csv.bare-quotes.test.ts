// docs/api.md#writes: a `"` inside an unquoted field is a literal character, as every common reader takes
// it. The expected cells are what Python 3.11's csv module (`csv.reader(f, strict=True)`) and
// pandas 1.5.3 (`read_csv(f, dtype=str, keep_default_na=False)`) return for the same text;
// the upload validator, the stored-content decoder and the record skipper must all agree.
import { describe, expect, it } from "vitest";
import { CsvError, CsvScanner, parseCsvRecords } from "../src/csv/index.ts";
import { RecordSkipper } from "../src/csv/record-skipper.ts";

const LIMITS = { maxColumns: 100, maxFieldBytes: 1000, maxHeaderBytes: 1000 };
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** [input, records as Python's csv module and pandas read them (header first)]. */
const ACCEPTED: [string, string[][]][] = [
  ["name,height\nAnn,5'11\"\n", [["name", "height"], ["Ann", "5'11\""]]],
  ["place,coord\nX,37°36'37.8\"N\n", [["place", "coord"], ["X", "37°36'37.8\"N"]]],
  ['a,b\nx"y"z,2\n', [["a", "b"], ['x"y"z', "2"]]],
  ['a,b\nab"",2\n', [["a", "b"], ['ab""', "2"]]],
  ['a,b\n"x ""y""",5\'11"\n', [["a", "b"], ['x "y"', "5'11\""]]],
  ['a,b\n1,2"\n', [["a", "b"], ["1", '2"']]],
  ['a,b\n1,a"b\nc,d\n', [["a", "b"], ["1", 'a"b'], ["c", "d"]]],
  ['a,b\nx,"multi\nline"\n3,4"\n', [["a", "b"], ["x", "multi\nline"], ["3", '4"']]],
  ['h"x,y\n1,2\n', [['h"x', "y"], ["1", "2"]]],
  ['a,b\r\n1,say "hi"\r\n"",2\r\n', [["a", "b"], ["1", 'say "hi"'], ["", "2"]]],
];

/** Inputs both readers refuse or split differently from the header (Python strict / pandas). */
const REFUSED: [string, number][] = [
  ['a,b\n1,"\n', 2], // end of input inside a quoted field: both refuse
  ['a,b\n"abc"def,2\n', 2], // text after a closing quote: Python's strict mode refuses
  ['a,b\n "q,r",2\n', 2], // a leading space makes the field unquoted: both read 3 fields
];

function scanInChunks(text: string, size: number): { out: string; header: string[] | null; rows: number } {
  const bytes = encoder.encode(text);
  const scanner = new CsvScanner({ kind: "table" }, LIMITS);
  let out = "";
  for (let at = 0; at < bytes.length; at += size) out += decoder.decode(scanner.push(bytes.slice(at, at + size)), { stream: true });
  out += decoder.decode(scanner.finish());
  return { out, header: scanner.stats.header, rows: scanner.stats.rows };
}

describe("a quote inside an unquoted field", () => {
  it("is accepted by the validator, which passes the bytes on unchanged, in every chunking", () => {
    for (const [input, records] of ACCEPTED) {
      for (const size of [1, 2, 3, 7, input.length]) {
        expect(scanInChunks(input, size), `${JSON.stringify(input)} in chunks of ${size}`).toEqual({
          out: input,
          header: records[0],
          rows: records.length - 1,
        });
      }
    }
  });

  it("decodes to the cells Python's csv module and pandas read", () => {
    for (const [input, records] of ACCEPTED) expect(parseCsvRecords(input), JSON.stringify(input)).toEqual(records);
  });

  it("does not open quotes for the record skipper", () => {
    for (const [input, records] of ACCEPTED) {
      const bytes = encoder.encode(input);
      for (let n = 1; n < records.length; n++) {
        const end = new RecordSkipper(n).push(bytes);
        expect(parseCsvRecords(decoder.decode(bytes.subarray(end))), `${JSON.stringify(input)} skip ${n}`).toEqual(records.slice(n));
      }
    }
  });

  it("leaves unbalanced quotes in quoted fields refused, by the validator and the decoder", () => {
    for (const [input, row] of REFUSED) {
      let caught: unknown = null;
      try {
        scanInChunks(input, 1);
      } catch (error: unknown) {
        caught = error;
      }
      expect(caught, JSON.stringify(input)).toBeInstanceOf(CsvError);
      expect((caught as CsvError).toJSON(), JSON.stringify(input)).toMatchObject({ code: "invalid_csv", row });
    }
    expect(() => parseCsvRecords('a,b\n1,"\n')).toThrow(CsvError);
    expect(() => parseCsvRecords('a,b\n"abc"def,2\n')).toThrow(CsvError);
  });
});
