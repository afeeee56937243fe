// RFC 8941 parsing is strict: every malformed input is a tagged failure, never an exception.
import { describe, expect, it } from "vitest";
import { serializeDictionary } from "../src/wire/structured-fields-serialize.ts";
import { type Dictionary, parseDictionary } from "../src/wire/structured-fields.ts";

function parse(input: string): Dictionary {
  const result = parseDictionary(input);
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

describe("parseDictionary", () => {
  it("reads inner lists with parameters and items of every type", () => {
    const dict = parse('sig=("@method" tok);created=1618884473;keyid="k\\"1";flag, n=-12.5;p, b=:AQID:, t=?0, s="x"');
    expect(dict.get("sig")).toEqual({
      kind: "inner-list",
      items: [
        { kind: "item", value: { type: "string", value: "@method" }, params: new Map() },
        { kind: "item", value: { type: "token", value: "tok" }, params: new Map() },
      ],
      params: new Map([
        ["created", { type: "integer", value: 1618884473 }],
        ["keyid", { type: "string", value: 'k"1' }],
        ["flag", { type: "boolean", value: true }],
      ]),
    });
    expect(dict.get("n")).toEqual({
      kind: "item",
      value: { type: "decimal", value: -12.5 },
      params: new Map([["p", { type: "boolean", value: true }]]),
    });
    expect(dict.get("b")).toEqual({ kind: "item", value: { type: "bytes", value: new Uint8Array([1, 2, 3]) }, params: new Map() });
    expect(dict.get("t")?.kind === "item" && dict.get("t")?.params.size).toBe(0);
  });

  it("accepts optional whitespace between members and inside inner lists", () => {
    expect(parse('a=( "x"   "y" );k=1 ,\tb=2').size).toBe(2);
  });

  it.each([
    ['a=("x" "y");created=1;keyid="k"', 'a=("x" "y");created=1;keyid="k"'],
    ['a=(  "x"  "y"  );created=1', 'a=("x" "y");created=1'],
    ["a, b=?1, c=?0;x", "a, b, c=?0;x"],
    ["d=1.50, e=-0.0", "d=1.5, e=0.0"],
    ['s="a\\\\b\\"c"', 's="a\\\\b\\"c"'],
  ])("serialises %s canonically as %s", (input, canonical) => {
    expect(serializeDictionary(parse(input))).toBe(canonical);
  });

  it.each([
    ["an unterminated inner list", 'a=("x" "y"'],
    ["items run together", 'a=("x""y")'],
    ["a trailing comma", "a=1,"],
    ["a missing comma", "a=1 b=2"],
    ["an upper-case key", "A=1"],
    ["a key starting with a digit", "1a=1"],
    ["a repeated key", "a=1, a=2"],
    ["a repeated parameter", 'a=("x");keyid="k";keyid="j"'],
    ["an unterminated string", 'a="abc'],
    ["a bad escape", 'a="a\\n"'],
    ["a tab in a string", 'a="a\tb"'],
    ["a non-ASCII character", 'a="é"'],
    ["a control character", "a=1\u0000"],
    ["an unterminated byte sequence", "a=:AAAA"],
    ["non-base64 bytes", "a=:AA-A:"],
    ["an integer of 16 digits", "a=1234567890123456"],
    ["a decimal with 4 fraction digits", "a=1.2345"],
    ["a decimal with no fraction digits", "a=1."],
    ["a bare minus", "a=-"],
    ["a bad boolean", "a=?2"],
    ["an item that is no type", "a=@x"],
    ["a nested inner list", "a=((1))"],
    ["a parameter without a key", "a=1;=2"],
  ])("fails on %s", (_, input) => {
    const result = parseDictionary(input);
    expect(result.ok).toBe(false);
  });

  it("reads an empty field as an empty dictionary", () => {
    expect(parse("").size).toBe(0);
  });
});
