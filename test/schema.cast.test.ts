// docs/column-types.md casting: typed values for /rows and the check declared types hold cells to, with
// Table Schema's decimalChar, groupChar, trueValues/falseValues, missingValues and required.
import { describe, expect, it } from "vitest";
import { castCell } from "../src/schema/cast.ts";
import type { Field } from "../src/schema/table-schema.ts";

const MISSING = new Set([""]);
const cast = (field: Omit<Field, "name">, text: string, missing = MISSING) => castCell({ name: "c", ...field }, text, missing);

describe("castCell", () => {
  it("integers and numbers become JSON numbers; past 2^53 − 1 and NaN/INF keep their exact text", () => {
    expect(cast({ type: "integer" }, "-42")).toEqual({ ok: true, value: -42 });
    expect(cast({ type: "integer" }, "9007199254740993")).toEqual({ ok: true, value: "9007199254740993" });
    expect(cast({ type: "number" }, "2.5e3")).toEqual({ ok: true, value: 2500 });
    expect(cast({ type: "number" }, "INF")).toEqual({ ok: true, value: "INF" });
    expect(cast({ type: "number" }, "1e999")).toEqual({ ok: true, value: "1e999" });
    expect(cast({ type: "integer" }, "1.5")).toEqual({ ok: false, expected: "integer" });
  });

  it("an integer or number field takes leading zeros, as Frictionless reads Table Schema: 01234 is 1234", () => {
    expect(cast({ type: "integer" }, "01234")).toEqual({ ok: true, value: 1234 });
    expect(cast({ type: "integer" }, "-007")).toEqual({ ok: true, value: -7 });
    expect(cast({ type: "integer" }, "+12")).toEqual({ ok: true, value: 12 });
    expect(cast({ type: "integer" }, "00")).toEqual({ ok: true, value: 0 });
    expect(cast({ type: "integer", groupChar: "," }, "01,234")).toEqual({ ok: true, value: 1234 });
    expect(cast({ type: "number" }, "007.5")).toEqual({ ok: true, value: 7.5 });
    expect(cast({ type: "number" }, "-01")).toEqual({ ok: true, value: -1 });
    expect(cast({ type: "integer" }, "007.5")).toEqual({ ok: false, expected: "integer" });
    expect(cast({ type: "integer" }, "0x10")).toEqual({ ok: false, expected: "integer" });
  });

  it("decimalChar and groupChar read 1.234,5 as a number", () => {
    expect(cast({ type: "number", decimalChar: ",", groupChar: "." }, "1.234,5")).toEqual({ ok: true, value: 1234.5 });
    expect(cast({ type: "integer", groupChar: "," }, "1,234,567")).toEqual({ ok: true, value: 1234567 });
    expect(cast({ type: "number" }, "1.234,5")).toEqual({ ok: false, expected: "number" });
  });

  it("booleans: any case when inferred, exactly the declared lists otherwise", () => {
    expect(cast({ type: "boolean" }, "TRUE")).toEqual({ ok: true, value: true });
    expect(cast({ type: "boolean" }, "tRuE")).toEqual({ ok: true, value: true });
    expect(cast({ type: "boolean", trueValues: ["ja"], falseValues: ["nein"] }, "nein")).toEqual({ ok: true, value: false });
    expect(cast({ type: "boolean", trueValues: ["ja"], falseValues: ["nein"] }, "true")).toEqual({ ok: false, expected: "boolean" });
  });

  it("missing values are null, refused when required; NA counts only when declared", () => {
    expect(cast({ type: "integer" }, "")).toEqual({ ok: true, value: null });
    expect(cast({ type: "integer", constraints: { required: true } }, "")).toEqual({ ok: false, expected: "integer (required)" });
    expect(cast({ type: "number" }, "NA", new Set(["", "NA"]))).toEqual({ ok: true, value: null });
    expect(cast({ type: "number" }, "NA")).toEqual({ ok: false, expected: "number" });
  });

  it("dates, datetimes and strings stay text once checked", () => {
    expect(cast({ type: "date" }, "2024-02-29")).toEqual({ ok: true, value: "2024-02-29" });
    expect(cast({ type: "date" }, "2024-02-30")).toEqual({ ok: false, expected: "date" });
    expect(cast({ type: "datetime" }, "2024-02-29 10:00:00+01:00")).toEqual({ ok: true, value: "2024-02-29 10:00:00+01:00" });
    expect(cast({ type: "string" }, "007")).toEqual({ ok: true, value: "007" });
  });
});
