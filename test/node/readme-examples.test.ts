// The README's and docs' examples append rows to examples/cities.csv. A quick start whose
// appended row is one field short fails a newcomer's second command with column_count_mismatch,
// so every row they append must fit the file it appends to.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCsvRecords } from "../../src/csv/index.ts";
import { documentationFiles, readDoc } from "./helpers/markdown.ts";
import { PROJECT_ROOT } from "./helpers/run-script.ts";

const readme = readDoc("README.md");
const everything = documentationFiles().map(readDoc).join("\n");
const [header] = parseCsvRecords(readFileSync(join(PROJECT_ROOT, "examples/cities.csv"), "utf8"));

/** Rows the README and docs/ append: `printf '…' > FILE` lines and `client.append(id, "…")` calls. */
function appendedRows(): Array<{ where: string; rows: string[][] }> {
  const found: Array<{ where: string; rows: string[][] }> = [];
  for (const match of everything.matchAll(/printf '([^']*)' > \S+/g)) {
    found.push({ where: match[0], rows: parseCsvRecords(match[1]!.replaceAll("\\n", "\n")) });
  }
  for (const match of everything.matchAll(/client\.append\([^,]+, "((?:[^"\\]|\\.)*)"/g)) {
    found.push({ where: match[0], rows: parseCsvRecords(JSON.parse(`"${match[1]!}"`) as string) });
  }
  return found;
}

describe("README and docs examples", () => {
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
