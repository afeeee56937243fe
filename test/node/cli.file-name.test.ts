// Where a download lands when the user names no file: the server chose the name, so only a safe
// base name of it is kept (issue 13: a name with `..%2F` must not leave the working directory).
import { describe, expect, it } from "vitest";
import { safeFileName } from "../../src/client/file-name.ts";

describe("safeFileName", () => {
  it.each([
    ["cities.csv.gz", "cities.csv.gz"],
    ["..%2F..%2Fescaped.csv.gz", "escaped.csv.gz"],
    ["%2E%2E%2Fescaped.csv.gz", "escaped.csv.gz"],
    ["..%5C..%5Cwindows.csv.gz", "windows.csv.gz"],
    ["%2Fetc%2Fpasswd", "passwd"],
    [".hidden.csv.gz", "hidden.csv.gz"],
    ["na%20me%0A.csv.gz", "na_me_.csv.gz"],
    ["..", "dataset.csv.gz"],
    ["%2E%2E", "dataset.csv.gz"],
    ["", "dataset.csv.gz"],
    ["bad%zzname.csv.gz", "bad_zzname.csv.gz"],
  ])("%j → %j", (name, expected) => {
    expect(safeFileName(name, "dataset.csv.gz")).toBe(expected);
  });

  it("keeps the end (the extension) of a very long name", () => {
    const name = safeFileName(`${"a".repeat(500)}.csv.gz`, "x");
    expect(name.length).toBe(200);
    expect(name.endsWith(".csv.gz")).toBe(true);
  });
});
