// The README's examples append rows to examples/cities.csv. Issue 13 found the quick start's
// appended row one field short, so a newcomer's second command failed with
// column_count_mismatch. Every row the README appends must fit the file it appends to.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCsvRecords } from "../../src/csv/index.ts";
import { PROJECT_ROOT } from "./helpers/run-script.ts";

const readme = readFileSync(join(PROJECT_ROOT, "README.md"), "utf8");
const [header] = parseCsvRecords(readFileSync(join(PROJECT_ROOT, "examples/cities.csv"), "utf8"));

/** Rows the README appends: `printf '…' > FILE` lines and `client.append(id, "…")` calls. */
function appendedRows(): Array<{ where: string; rows: string[][] }> {
  const found: Array<{ where: string; rows: string[][] }> = [];
  for (const match of readme.matchAll(/printf '([^']*)' > \S+/g)) {
    found.push({ where: match[0], rows: parseCsvRecords(match[1]!.replaceAll("\\n", "\n")) });
  }
  for (const match of readme.matchAll(/client\.append\([^,]+, "((?:[^"\\]|\\.)*)"/g)) {
    found.push({ where: match[0], rows: parseCsvRecords(JSON.parse(`"${match[1]!}"`) as string) });
  }
  return found;
}

describe("README examples", () => {
  it("create from examples/cities.csv", () => {
    expect(readme).toContain("--dataset examples/cities.csv");
    expect(readme).toContain('{ path: "examples/cities.csv" }');
  });

  it("append rows with as many fields as examples/cities.csv has columns", () => {
    const appended = appendedRows();
    expect(appended.length).toBeGreaterThanOrEqual(2);
    for (const { where, rows } of appended) {
      expect(rows.length, where).toBeGreaterThan(0);
      for (const row of rows) expect(row.length, where).toBe(header!.length);
    }
  });
});
