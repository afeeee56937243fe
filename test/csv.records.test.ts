// The record decoder used to read stored content: RFC 4180 decoding, the blank-line
// conventions shared with the scanner, and independence from how the text is split.
import { describe, expect, it } from "vitest";
import { CsvError, CsvRecordDecoder, parseCsvRecords } from "../src/csv/index.ts";

describe("parseCsvRecords", () => {
  it("decodes quoted and unquoted fields", () => {
    expect(parseCsvRecords('a,"b,c","say ""hi"""\r\n"x\r\ny",,\n')).toEqual([
      ["a", "b,c", 'say "hi"'],
      ["x\r\ny", "", ""],
    ]);
  });

  it("reads a last record without a line break, and drops a leading BOM", () => {
    expect(parseCsvRecords("\uFEFFa,b\n1,2")).toEqual([["a", "b"], ["1", "2"]]);
    expect(parseCsvRecords('a\n""')).toEqual([["a"], [""]]);
    expect(parseCsvRecords("a,")).toEqual([["a", ""]]);
  });

  it("treats blank lines as empty records except at the end", () => {
    expect(parseCsvRecords("\na\n\r\n\nb\n\n\r\n")).toEqual([[""], ["a"], [""], [""], ["b"]]);
    expect(parseCsvRecords("")).toEqual([]);
    expect(parseCsvRecords("\n\n")).toEqual([]);
  });

  it("rejects malformed quoting and a CR without LF", () => {
    for (const text of ['a,"b', '"a"b', 'a,"b"c', "a\rb", "a\r"]) {
      expect(() => parseCsvRecords(text), text).toThrow(CsvError);
    }
    let caught: unknown = null;
    try {
      parseCsvRecords('a\nb\n"c');
    } catch (err: unknown) {
      caught = err;
    }
    expect(caught).toMatchObject({ code: "invalid_csv", row: 3 });
  });

  it("reads a quote inside an unquoted field as a literal character", () => {
    expect(parseCsvRecords('a,b"c\n5\'11",x\n')).toEqual([["a", 'b"c'], ["5'11\"", "x"]]);
  });
});

describe("CsvRecordDecoder", () => {
  it("gives the same records however the text is split", () => {
    const text = '\uFEFFh1,"h,2"\r\n"a ""q"" 😀",b\n\n"x\ny",\r\n\n';
    const whole = parseCsvRecords(text);
    for (let at = 0; at <= text.length; at++) {
      for (let to = at; to <= text.length; to += 3) {
        const decoder = new CsvRecordDecoder();
        const records = [...decoder.push(text.slice(0, at)), ...decoder.push(text.slice(at, to)), ...decoder.push(text.slice(to))];
        records.push(...decoder.finish());
        expect(records, `split at ${at}, ${to}`).toEqual(whole);
      }
    }
  });
});
