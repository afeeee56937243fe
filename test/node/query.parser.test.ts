// The query language's syntax (docs/queries.md): precedence and associativity, quoting, keywords
// in any case, the position and expectation of every error, the 4 KiB bound, the `columns` and
// `order` lists, and which spellings normalise to one query and which stay apart.
import { describe, expect, it } from "vitest";
import { parseWhere } from "../../src/query/language/parser.ts";
import { compileQuery } from "../../src/query/language/query.ts";
import type { Expr } from "../../src/query/language/syntax.ts";
import type { TableSchema } from "../../src/schema/table-schema.ts";

const SCHEMA: TableSchema = {
  fields: [
    { name: "a", type: "integer" },
    { name: "b", type: "integer" },
    { name: "c", type: "integer" },
    { name: "amount", type: "number" },
    { name: "name", type: "string" },
    { name: "day", type: "date" },
    { name: "at", type: "datetime" },
    { name: "clock", type: "time" },
    { name: "flag", type: "boolean" },
    { name: "a b", type: "string" },
    { name: 'say "hi"', type: "string" },
    { name: "x,y", type: "string" },
    { name: "and", type: "string" },
    { name: "Amount", type: "number" },
  ],
  missingValues: [""],
};

/** The tree without positions, as nested arrays: ["or", …], ["not", …], "a = 1". */
function shape(expr: Expr): unknown {
  switch (expr.kind) {
    case "and":
    case "or":
      return [expr.kind, ...expr.items.map(shape)];
    case "not":
      return ["not", shape(expr.item)];
    case "compare":
      return `${expr.column.name} ${expr.op} ${expr.literal.kind === "number" ? expr.literal.text : String(expr.literal.value)}`;
    case "in":
      return `${expr.column.name} ${expr.negated ? "NOT IN" : "IN"} ${expr.literals.length}`;
    case "null":
      return `${expr.column.name} IS ${expr.negated ? "NOT NULL" : "NULL"}`;
    case "like":
      return `${expr.column.name} ${expr.negated ? "NOT LIKE" : "LIKE"} ${expr.pattern.value}${expr.escape ? ` ESCAPE ${expr.escape.value}` : ""}`;
  }
}

function parsed(where: string): unknown {
  const result = parseWhere(where);
  if (!result.ok) throw new Error(result.error.detail);
  return shape(result.value);
}

function normalised(where: string): string {
  const result = compileQuery({ where }, SCHEMA);
  if (!result.ok) throw new Error(result.error.detail);
  return result.value.normalised.where!;
}

function error(input: { where?: string; columns?: string; order?: string }) {
  const result = compileQuery(input, SCHEMA);
  if (result.ok) throw new Error(`accepted: ${JSON.stringify(input)}`);
  return result.error;
}

describe("precedence and associativity", () => {
  it("binds NOT tighter than AND, and AND tighter than OR", () => {
    expect(parsed("a = 1 OR b = 2 AND c = 3")).toEqual(["or", "a = 1", ["and", "b = 2", "c = 3"]]);
    expect(parsed("a = 1 AND b = 2 OR c = 3")).toEqual(["or", ["and", "a = 1", "b = 2"], "c = 3"]);
    expect(parsed("NOT a = 1 AND b = 2")).toEqual(["and", ["not", "a = 1"], "b = 2"]);
    expect(parsed("NOT a = 1 OR NOT b = 2 AND c = 3")).toEqual(["or", ["not", "a = 1"], ["and", ["not", "b = 2"], "c = 3"]]);
    expect(parsed("NOT NOT a = 1")).toEqual(["not", ["not", "a = 1"]]);
  });

  it("lets parentheses override, and chains AND and OR into one node", () => {
    expect(parsed("(a = 1 OR b = 2) AND c = 3")).toEqual(["and", ["or", "a = 1", "b = 2"], "c = 3"]);
    expect(parsed("NOT (a = 1 AND b = 2)")).toEqual(["not", ["and", "a = 1", "b = 2"]]);
    expect(parsed("a = 1 OR b = 2 OR c = 3")).toEqual(["or", "a = 1", "b = 2", "c = 3"]);
    expect(parsed("(a = 1 AND b = 2) AND c = 3")).toEqual(parsed("a = 1 AND (b = 2 AND c = 3)"));
    expect(parsed("((((a = 1))))")).toEqual("a = 1");
  });

  it("reads every predicate form", () => {
    expect(parsed("a IN (1, 2,3)")).toEqual("a IN 3");
    expect(parsed("a NOT IN (1)")).toEqual("a NOT IN 1");
    expect(parsed("a IS NULL")).toEqual("a IS NULL");
    expect(parsed("a IS NOT NULL")).toEqual("a IS NOT NULL");
    expect(parsed("name LIKE 'x%'")).toEqual("name LIKE x%");
    expect(parsed("name NOT LIKE 'x!%' ESCAPE '!'")).toEqual("name NOT LIKE x!% ESCAPE !");
    expect(parsed("a<>1")).toEqual("a != 1");
    expect(parsed("a<=-1.5e+3")).toEqual("a <= -1.5e+3");
    expect(parsed("a>=.5")).toEqual("a >= .5");
    expect(parsed("a = +2")).toEqual("a = +2");
  });
});

describe("quoting and keywords", () => {
  it("reads double-quoted names and single-quoted text with doubled quotes inside", () => {
    expect(parsed(`"say ""hi""" = 'it''s'`)).toEqual(`say "hi" = it's`);
    expect(parsed(`"a b" = ''`)).toEqual("a b = ");
    expect(parsed(`"and" = 'OR'`)).toEqual("and = OR");
    expect(parsed(`name = '😀 "x" -- ; DROP'`)).toEqual(`name = 😀 "x" -- ; DROP`);
  });

  it("reads keywords in any case, names only as written", () => {
    expect(parsed("a is not null and b in (1) or name not like 'x' escape '!' or not flag = TrUe")).toEqual(parsed("a IS NOT NULL AND b IN (1) OR name NOT LIKE 'x' ESCAPE '!' OR NOT flag = TRUE"));
    expect(normalised("Amount = 1")).toBe("Amount = 1");
    expect(normalised("amount = 1")).toBe("amount = 1");
  });
});

describe("errors name their position (1-based, in code points) and what was expected", () => {
  const cases: [string, number, string][] = [
    ["", 1, 'a column, NOT or "("'],
    ["a =", 4, 'a literal (a number, \'text\', true or false) after "="'],
    ["a = 1 b", 7, "AND, OR or end of input"],
    ["(a = 1", 7, 'AND, OR or ")"'],
    ["a = 1)", 6, 'AND, OR or end of input (this ")" closes nothing)'],
    ["a == 1", 4, 'a literal (a number, \'text\', true or false) after "="'],
    ["a = 'abc", 9, "a closing '"],
    ['"abc = 1', 9, 'a closing "'],
    ["a = 1e", 7, "digits of the exponent"],
    ["a = 1e+x", 8, "digits of the exponent"],
    ["a = 1and b = 2", 6, "a space, an operator or a parenthesis after a number"],
    ["a IN (1,2x)", 10, "a space, an operator or a parenthesis after a number"],
    ["a # 1", 3, "a column, a literal, an operator or a parenthesis"],
    ["a = .", 5, "a column, a literal, an operator or a parenthesis"],
    ["-a = 1", 1, "a column, a literal, an operator or a parenthesis"],
    ["😀 = 1", 1, "a column, a literal, an operator or a parenthesis"],
    ["a IN 1", 6, '"(" after IN'],
    ["a IN ()", 7, "a literal (a number, 'text', true or false)"],
    ["a IN (1 2)", 9, '"," or ")"'],
    ["a IN (1,)", 9, 'a literal (a number, \'text\', true or false) after ","'],
    ["a IS 1", 6, "NULL or NOT NULL after IS"],
    ["a IS NOT 1", 10, "NULL after IS NOT"],
    ["a NOT = 1", 7, "IN or LIKE after NOT"],
    ["name LIKE b", 11, "a pattern in single quotes after LIKE"],
    ["name LIKE 'x' ESCAPE 1", 22, "an escape character in single quotes after ESCAPE"],
    ["and = 1", 1, 'a column, NOT or "("'],
    ["a = null", 5, 'a literal (a number, \'text\', true or false) after "="'],
    ["1 = a", 1, 'a column, NOT or "("'],
    ["a AND b", 3, "an operator (=, !=, <, <=, >, >=, IN, NOT IN, IS, LIKE or NOT LIKE)"],
    ["a", 2, "an operator (=, !=, <, <=, >, >=, IN, NOT IN, IS, LIKE or NOT LIKE)"],
    ["a < > 1", 5, 'a literal (a number, \'text\', true or false) after "<"'],
    ["name = '😀' AND", 15, 'a column, NOT or "("'],
    ["a = 1 AND AND b = 1", 11, 'a column, NOT or "("'],
    ["a = 1 AND NOT", 14, 'a column, NOT or "("'],
    [`${"NOT ".repeat(65)}a = 1`, 257, "at most 64 levels of parentheses and NOT"],
    [`${"(".repeat(65)}a = 1${")".repeat(65)}`, 65, "at most 64 levels of parentheses and NOT"],
    // Typing: the column, then the literal, each where it stands.
    ["nope = 1", 1, "a column of this version"],
    ["a = 1 AND amont = 1", 11, "a column of this version"],
    ["amount = 'x'", 10, "a number"],
    ["day >= 'nope'", 8, "a date as text, like '2024-01-31'"],
    ["day >= '2024-02-30'", 8, "a date as text, like '2024-01-31'"],
    ["at < '2024-01-01 25:00:00'", 6, "a datetime as text, like '2024-01-31T12:00:00Z'"],
    ["clock = '7pm'", 9, "a time of day as text, like '13:30:00'"],
    ["flag = 3", 8, "true or false"],
    ["flag = 'yes'", 8, "true or false"],
    ["name = 3", 8, "text in single quotes"],
    ["name IN ('x', true)", 15, "text in single quotes"],
    ["a = 'NaN'", 5, "an integer"],
    ["a = true", 5, "an integer"],
    ["amount = 1e400", 10, "a number within ±1.80e+308 (or 'INF', '-INF', 'NaN')"],
    ["a = 1e1001", 5, "a number with an exponent within ±1000"],
    ["amount LIKE 'x'", 1, "a column of type string before LIKE"],
    ["name LIKE 'x' ESCAPE 'ab'", 22, "one character after ESCAPE"],
    ["name LIKE 'x!' ESCAPE '!'", 11, "a character after the pattern's last escape character"],
    ["'😀' = 1", 1, 'a column, NOT or "("'],
    ["name = '😀😀' AND nope = 1", 17, "a column of this version"],
  ];
  it.each(cases)("%j → character %i", (where, position, expected) => {
    const found = where === "" ? parseWhere(where) : compileQuery({ where }, SCHEMA);
    if (found.ok) throw new Error("accepted");
    expect(found.error.parameter).toBe("where");
    expect({ position: found.error.position, expected: found.error.expected }).toEqual({ position, expected });
    expect(found.error.detail).toContain(`where, at character ${position}: expected ${expected}, found `);
  });

  it("says what it found, and suggests a near name or IS NULL", () => {
    expect(error({ where: "a =" }).found).toBe("end of input");
    expect(error({ where: "a = 1 b" }).found).toBe('"b"');
    expect(error({ where: "name = 3" }).found).toBe("3");
    expect(error({ where: "amount = 'x'" }).detail).toBe(`where, at character 10: expected a number, found 'x' ("amount" is a column of type number).`);
    expect(error({ where: "nmae = 'x'" }).detail).toBe(`where, at character 1: expected a column of this version, found column "nmae" (did you mean "name"?).`);
    expect(error({ where: "AMOUNT = 1" }).detail).toContain(`did you mean "amount"?`);
    expect(error({ where: "a = null" }).detail).toContain("IS NULL");
    expect(error({ where: "and = 1" }).detail).toContain("double quotes");
    expect(error({ where: "q = 1" }).detail).not.toContain("did you mean");
  });
});

describe("the 4 KiB bound on where", () => {
  const text = (n: number) => `name = '${"x".repeat(n)}'`;
  it("takes 4096 bytes and refuses 4097, at the first character past the bound", () => {
    expect(compileQuery({ where: text(4096 - 9) }, SCHEMA).ok).toBe(true);
    const over = error({ where: text(4096 - 8) });
    expect(over).toMatchObject({ position: 4097, expected: "at most 4096 bytes of UTF-8" });
  });

  it("counts bytes of UTF-8, not characters", () => {
    const where = `name = '${"é".repeat(2044)}'`;
    expect(where.length).toBe(2053);
    expect(error({ where })).toMatchObject({ position: 2053, expected: "at most 4096 bytes of UTF-8" });
    expect(compileQuery({ where: `name = '${"😀".repeat(1021)}'` }, SCHEMA).ok).toBe(true);
    expect(error({ where: `name = '${"😀".repeat(1022)}'` }).position).toBe(1031);
  });
});

describe("columns and order", () => {
  it("reads names separated by commas, quoted when they hold a comma", () => {
    const result = compileQuery({ columns: `name, "x,y",a b,"say ""hi"""`, order: `-amount, "x,y",- day` }, SCHEMA);
    if (!result.ok) throw new Error(result.error.detail);
    expect(result.value.columns).toEqual([4, 11, 9, 10]);
    expect(result.value.order.map((term) => [term.column, term.descending])).toEqual([
      [3, true],
      [11, false],
      [5, true],
    ]);
    expect(result.value.needed).toEqual([3, 4, 5, 9, 10, 11]);
  });

  const cases: [{ columns?: string; order?: string }, string, number, string][] = [
    [{ columns: "name,nope" }, "columns", 6, "a column of this version"],
    [{ columns: "name,,a" }, "columns", 6, "a column name"],
    [{ columns: "name," }, "columns", 6, "a column name"],
    [{ columns: "name,name" }, "columns", 6, "each column at most once"],
    [{ columns: '"x,y' }, "columns", 5, 'a closing "'],
    [{ columns: '"x,y" z' }, "columns", 7, '"," or end of input'],
    [{ columns: 'na"me' }, "columns", 3, "a name without a double quote (or one wholly in double quotes)"],
    [{ order: "-amount,--a" }, "order", 10, "a column of this version"],
    [{ order: "a,-a" }, "order", 3, "each column at most once"],
    [{ order: "Name" }, "order", 1, "a column of this version"],
  ];
  it.each(cases)("%j → %s at %i", (input, parameter, position, expected) => {
    expect(error(input)).toMatchObject({ parameter, position, expected });
  });

  it("reads a blank parameter as the default", () => {
    const result = compileQuery({ where: " ", columns: "", order: null }, SCHEMA);
    expect(result.ok && result.value.cacheKey).toBe("");
  });
});

describe("normalisation", () => {
  const same: [string, string][] = [
    ["a=1", "a = 1"],
    ["a = 1", "  a\t=\n1  "],
    ["a = 1 and b = 2", "A = 1 AND b = 2".replace("A", "a")],
    ['"a" = 1', "a = 1"],
    ["a <> 1", "a != 1"],
    ["((a = 1))", "a = 1"],
    ["(a = 1 AND b = 2) AND c = 3", "a = 1 AND (b = 2 AND c = 3)"],
    ["(a = 1 OR b = 2) OR c = 3", "a = 1 OR b = 2 OR c = 3"],
    ["NOT NOT a = 1", "a = 1"],
    ["amount = 1.0", "amount = 1"],
    ["amount = 1e0", "amount = 1"],
    ["amount = '1'", "amount = 1"],
    ["amount = +1.50", "amount = 1.5"],
    ["amount = -0", "amount = 0"],
    ["a = 1.0", "a = 1"],
    ["a = 10e-1", "a = 1"],
    ["a = '007'", "a = 7"],
    ["a = 12345678901234567890123456789.0", "a = 12345678901234567890123456789"],
    ["a IN (2, 1, 1.0)", "a IN (1, 2)"],
    ["flag = TRUE", "flag = true"],
    ["flag = 'True'", "flag = true"],
    ["at = '2024-01-01 10:00:00+02:00'", "at = '2024-01-01T08:00:00Z'"],
    ["at = '2024-01-01T08:00:00.500'", "at = '2024-01-01t08:00:00.5z'"],
    ["clock = '10:00:00+01:00'", "clock = '09:00:00'"],
    ["name like 'x%' escape '!'", "name LIKE 'x%' ESCAPE '!'"],
    [`"a b" = 'x'`, `"a b" = 'x'`],
  ];
  it.each(same)("%j is %j", (a, b) => {
    expect(normalised(a)).toBe(normalised(b));
  });

  const different: [string, string][] = [
    ["a = 1 OR b = 2 AND c = 3", "(a = 1 OR b = 2) AND c = 3"],
    ["NOT a = 1 AND b = 2", "NOT (a = 1 AND b = 2)"],
    ["amount = 1", "amount = 1.5"],
    ["a = 1", "a = 1.5"],
    ["amount = 'NaN'", "amount = 'INF'"],
    ["name = 'A'", "name = 'a'"],
    ["amount = 1", "Amount = 1"],
    ["a IN (1, 2)", "a NOT IN (1, 2)"],
    ["a IS NULL", "a IS NOT NULL"],
    ["name LIKE 'x%'", "name NOT LIKE 'x%'"],
    ["at = '2024-01-01 10:00:00+02:00'", "at = '2024-01-01 10:00:00'"],
  ];
  it.each(different)("%j is not %j", (a, b) => {
    expect(normalised(a)).not.toBe(normalised(b));
  });

  it("writes one spelling that parses back to itself", () => {
    expect(normalised(`NOT (a=1 or "x,y" like 'it''s%') and (b in (3,2) or "and" is null) AND amount < 'NaN'`)).toBe(
      `NOT (a = 1 OR "x,y" LIKE 'it''s%') AND (b IN (2, 3) OR "and" IS NULL) AND amount < 'NaN'`,
    );
    for (const where of ["a = 1 OR b = 2 AND NOT c = 3", `"say ""hi""" = '😀' OR amount >= 1e300`, "NOT (NOT a = 1 OR b = 2)"]) {
      expect(normalised(normalised(where))).toBe(normalised(where));
    }
  });

  it("keys the cache by all three parameters, the default columns and order left out", () => {
    const key = (input: { where?: string; columns?: string; order?: string }) => {
      const result = compileQuery(input, SCHEMA);
      if (!result.ok) throw new Error(result.error.detail);
      return result.value.cacheKey;
    };
    expect(key({ where: "a=1" })).toBe(key({ where: "a = 1" }));
    expect(key({ where: "a=1" })).toBe("where=a+%3D+1");
    expect(key({ columns: SCHEMA.fields.map((field) => `"${field.name.replaceAll('"', '""')}"`).join(",") })).toBe(key({}));
    expect(key({ columns: "name,a" })).not.toBe(key({ columns: "a,name" }));
    expect(key({ order: "-a" })).not.toBe(key({ order: "a" }));
    expect(key({ order: " a , b" })).toBe(key({ order: "a,b" }));
    expect(key({ columns: '"x,y"' })).toBe("columns=%22x%2Cy%22");
  });
});

describe("any input", () => {
  const SEEDS = [
    "a = 1 AND ( amount > -2.5 OR name LIKE 'x%' ESCAPE '!' )",
    "NOT ( \"a b\" IN ( 'x' , 'it''s' ) ) OR b IS NOT NULL",
    "\"x,y\" NOT LIKE '%' AND NOT a <> 1e3 AND amount <= .5",
    "( ( name >= 'é' ) ) OR a NOT IN ( 1 , 2 ) AND b IS NULL",
  ].map((seed) => seed.split(" "));
  const PIECES = ["a", "amount", "name", '"a b"', "=", "!=", "<", "(", ")", ",", "AND", "or", "Not", "IN", "IS", "NULL", "LIKE", "ESCAPE", "true", "1", "-2.5", "1e", "'x'", "'", '"', "😀", "#", "-", ".", ""];

  it("is answered with a query or an error at a position inside it, never an exception", () => {
    let seed = 99;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const any = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    let accepted = 0;
    for (let n = 0; n < 3000; n++) {
      const tokens = [...any(SEEDS)];
      for (let edits = Math.floor(random() * 3); edits > 0; edits--) tokens.splice(Math.floor(random() * tokens.length), random() < 0.5 ? 1 : 0, any(PIECES));
      const where = tokens.join(random() < 0.8 ? " " : "");
      const result = compileQuery({ where }, SCHEMA);
      if (result.ok) {
        accepted++;
        const again = compileQuery({ where: result.value.normalised.where }, SCHEMA);
        expect(again.ok && again.value.normalised.where, where).toBe(result.value.normalised.where);
      } else {
        expect(result.error.position, where).toBeGreaterThanOrEqual(1);
        expect(result.error.position, where).toBeLessThanOrEqual([...where].length + 1);
        expect(result.error.detail, where).toMatch(/^(where, at character \d+: expected .+, found .+\.)$/s);
      }
    }
    // Both sides must be exercised: the edits leave some queries valid and break others.
    expect(accepted).toBeGreaterThan(300);
    expect(accepted).toBeLessThan(2700);
  });
});
