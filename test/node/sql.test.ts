// SQL literals for `wrangler d1 execute`, which cannot bind parameters: values stay values.
import { expect, it } from "vitest";
import { sql, sqlLiteral } from "../../scripts/lib/sql.ts";

it("renders strings single-quoted with quotes doubled, numbers and NULL as such", () => {
  expect(sqlLiteral("ada")).toBe("'ada'");
  expect(sqlLiteral("o'brien")).toBe("'o''brien'");
  expect(sqlLiteral("'; DROP TABLE api_keys; --")).toBe("'''; DROP TABLE api_keys; --'");
  expect(sqlLiteral(42)).toBe("42");
  expect(sqlLiteral(null)).toBe("NULL");
});

it("refuses control characters and non-finite numbers", () => {
  expect(() => sqlLiteral("a\u0000b")).toThrow();
  expect(() => sqlLiteral("a\nb")).toThrow();
  expect(() => sqlLiteral(Number.NaN)).toThrow();
});

it("turns every interpolation of the tagged template into a literal", () => {
  const team = "x' OR '1'='1";
  expect(sql`SELECT * FROM teams WHERE id = ${team} AND n = ${1}`).toBe(
    "SELECT * FROM teams WHERE id = 'x'' OR ''1''=''1' AND n = 1",
  );
});
