// docs/column-types.md inference at the edges: every row counts, missing values never decide, leading zeros
// keep a column text, and dates and datetimes are checked as calendar values.
import { describe, expect, it } from "vitest";
import { TypeInference } from "../src/schema/infer.ts";
import { isDatetime, isNumber } from "../src/schema/lexical.ts";

function infer(columns: string[], rows: string[][], missing?: string[]) {
  const inference = new TypeInference(columns, missing);
  for (const row of rows) inference.observe(row);
  return inference.schema();
}

const typeOf = (values: string[], missing?: string[]) => infer(["c"], values.map((v) => [v]), missing).fields[0]!;

describe("TypeInference", () => {
  it("integers with signs; leading zeros make a column text; a lone 0 does not", () => {
    expect(typeOf(["1", "-2", "+3", "0", "9007199254740993"]).type).toBe("integer");
    expect(typeOf(["12", "007"]).type).toBe("string");
    expect(typeOf(["8001", "01234"]).type).toBe("string");
    expect(typeOf(["-01"]).type).toBe("string");
    expect(typeOf(["0.5", "0", "0e3"]).type).toBe("number");
  });

  it("numbers: decimals, exponents, NaN and INF; integers widen to number", () => {
    expect(typeOf(["1", "2.5"]).type).toBe("number");
    expect(typeOf(["1e3", "-2.5E-4", ".5", "5."]).type).toBe("number");
    expect(typeOf(["NaN", "INF", "-INF", "3"]).type).toBe("number");
    expect(typeOf(["1,5"]).type).toBe("string");
    expect(typeOf(["1.2.3"]).type).toBe("string");
    expect(isNumber("nan")).toBe(false);
  });

  it("booleans in any case, and never mixed with numbers", () => {
    expect(typeOf(["true", "FALSE", "True"]).type).toBe("boolean");
    expect(typeOf(["true", "1"]).type).toBe("string");
    expect(typeOf(["yes"]).type).toBe("string");
  });

  it("dates that are not dates are text", () => {
    expect(typeOf(["2024-02-29", "2023-12-31"]).type).toBe("date");
    expect(typeOf(["2024-02-29", "2024-02-30"]).type).toBe("string");
    expect(typeOf(["2023-02-29"]).type).toBe("string");
    expect(typeOf(["2024-13-01"]).type).toBe("string");
    expect(typeOf(["2024-1-01"]).type).toBe("string");
  });

  it("datetimes with and without offsets; format any unless all are YYYY-MM-DDThh:mm:ssZ", () => {
    expect(typeOf(["2024-05-01T10:00:00Z", "2024-05-01T10:00:00.123Z"])).toEqual({ name: "c", type: "datetime" });
    expect(typeOf(["2024-05-01T10:00:00+02:00"])).toEqual({ name: "c", type: "datetime", format: "any" });
    expect(typeOf(["2024-05-01 10:00:00"])).toEqual({ name: "c", type: "datetime", format: "any" });
    expect(typeOf(["2024-05-01T24:00:00Z"]).type).toBe("string");
    expect(typeOf(["2024-05-01T10:00:00+25:00"]).type).toBe("string");
    expect(typeOf(["2024-05-01", "2024-05-01T10:00:00Z"]).type).toBe("string");
    expect(isDatetime("2024-02-30T00:00:00Z")).toBe(false);
  });

  it("missing values never decide a type; an all-missing column is a string", () => {
    expect(typeOf(["", "1", ""]).type).toBe("integer");
    expect(typeOf(["NA", "1.5"], ["", "NA"]).type).toBe("number");
    expect(typeOf(["NA", "1.5"]).type).toBe("string");
    expect(typeOf(["", ""]).type).toBe("string");
    expect(infer(["a"], []).fields).toEqual([{ name: "a", type: "string" }]);
  });

  it("the whole file counts: a type broken only in the last of 200,000 rows", () => {
    const inference = new TypeInference(["n", "d"]);
    for (let i = 0; i < 200_000; i++) inference.observe([String(i), "2024-01-01"]);
    inference.observe(["x", "2024-01-01"]);
    expect(inference.schema().fields.map((f) => f.type)).toEqual(["string", "date"]);
  });

  it("one-row files, columns in header order, missingValues reported", () => {
    expect(infer(["id", "when", "ok"], [["7", "2024-01-01", "false"]])).toEqual({
      fields: [
        { name: "id", type: "integer" },
        { name: "when", type: "date" },
        { name: "ok", type: "boolean" },
      ],
      missingValues: [""],
    });
  });
});
