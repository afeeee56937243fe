// What `pubset` draws: tables and records for people, and a progress line (bytes, rate, ETA)
// only when stderr is a terminal.
import { describe, expect, it } from "vitest";
import { formatBytes, formatObjects, formatRecord, formatTable } from "../../src/cli/output.ts";
import { WriteTracker } from "../../src/cli/interrupt.ts";
import { progressBar, progressLine, resumeLine } from "../../src/cli/progress-bar.ts";
import { chosenColumns, csvText, fitTable } from "../../src/cli/wide-table.ts";

describe("tables", () => {
  it("aligns columns and flattens cells", () => {
    expect(formatTable(["ID", "NAME"], [["1", "Tokyo"], ["22", "a\nb"]])).toBe("ID  NAME\n1   Tokyo\n22  a b\n");
    expect(formatObjects(["id", "key_words"], [{ id: "x", key_words: ["a", "b"] }])).toBe("ID  KEY_WORDS\nx   a,b\n");
    expect(formatObjects(["id"], [])).toBe("(none)\n");
    expect(formatRecord({ id: "x", properties: { a: 1 } })).toBe('id          x\nproperties  {"a":1}\n');
  });

  it("formats sizes in binary units", () => {
    expect([formatBytes(0), formatBytes(1023), formatBytes(1536), formatBytes(5 * 1024 ** 3)]).toEqual(["0 B", "1023 B", "1.5 KiB", "5.0 GiB"]);
  });
});

describe("progress", () => {
  it("shows bytes, percentage, rate and ETA when the total is known", () => {
    const line = progressLine({ phase: "upload", loaded: 2 * 1024 ** 2, total: 8 * 1024 ** 2 }, 2000, 100);
    expect(line).toMatch(/^upload {3}\[#+ +\] {2}25% {2}2\.0 MiB \/ 8\.0 MiB {2}1\.0 MiB\/s {2}ETA 0:06$/);
    expect(progressLine({ phase: "download", loaded: 1024, total: undefined }, 1000, 80)).toBe("download 1.0 KiB  1.0 KiB/s");
  });

  it("draws on a terminal only", () => {
    expect(progressBar({ isTTY: false, write: () => true })).toBeUndefined();
    const written: string[] = [];
    let now = 0;
    const bar = progressBar({ isTTY: true, columns: 100, write: (t) => written.push(t) > 0 }, undefined, () => now);
    if (!bar) throw new Error("expected a bar on a TTY");
    bar.onProgress({ phase: "prepare", loaded: 10, total: 100 });
    now = 50;
    bar.onProgress({ phase: "prepare", loaded: 20, total: 100 });
    now = 500;
    bar.onProgress({ phase: "prepare", loaded: 100, total: 100 });
    bar.onProgress({ phase: "upload", loaded: 100, total: 100 });
    bar.done();
    const text = written.join("");
    expect(text).toContain("compress");
    expect(text).toContain("upload");
    expect(text.endsWith("\n")).toBe(true);
    expect(written.filter((t) => t.startsWith("\r")).length).toBeLessThan(8);
  });

  it("keeps a write on one line, ending with the server's processing phase", () => {
    const written: string[] = [];
    let now = 0;
    const bar = progressBar({ isTTY: true, columns: 100, write: (t) => written.push(t) > 0 }, undefined, () => now);
    if (!bar) throw new Error("expected a bar on a TTY");
    bar.onProgress({ phase: "upload", loaded: 50, total: 100 });
    now = 1000;
    bar.onProgress({ phase: "upload", loaded: 100, total: 100 });
    bar.onProgress({ phase: "processing", loaded: 100, total: 100 });
    now = 4000;
    bar.done();
    const text = written.join("");
    expect(text.split("\n")).toHaveLength(2);
    expect(text).toContain("process");
    expect(text).toContain("100%");
    expect(text).toContain("0:03");
  });

  it("a resumed upload says where it resumes, and its bar starts there with this run's rate", () => {
    expect(resumeLine(65011712, 301779763)).toBe("resuming upload at 62.0 MiB of 287.8 MiB (21 %)");
    const written: string[] = [];
    let now = 0;
    const bar = progressBar({ isTTY: true, columns: 120, write: (t) => written.push(t) > 0 }, undefined, () => now);
    if (!bar) throw new Error("expected a bar on a TTY");
    bar.onProgress({ phase: "prepare", loaded: 40, total: 100, resumable: true });
    bar.note(resumeLine(40, 100));
    bar.onProgress({ phase: "upload", loaded: 40, total: 100, resumable: true, resumedFrom: 40 });
    const lines = written.join("").split("\n");
    expect(lines[1]).toBe("resuming upload at 40 B of 100 B (40 %)");
    expect(lines[2]).toMatch(/^\r\x1b\[2Kupload +\[#+ +\] +40%/);
    expect(progressLine({ phase: "upload", loaded: 3 * 1024 ** 2, total: 8 * 1024 ** 2, resumedFrom: 2 * 1024 ** 2 }, 1000, 100)).toContain("1.0 MiB/s");
  });

  it("draws nothing once interrupted, so no stale bar follows the interrupt message", () => {
    const written: string[] = [];
    const controller = new AbortController();
    const bar = progressBar({ isTTY: true, columns: 100, write: (t) => written.push(t) > 0 }, controller.signal, () => 0);
    if (!bar) throw new Error("expected a bar on a TTY");
    bar.onProgress({ phase: "upload", loaded: 10, total: 100 });
    const before = written.length;
    controller.abort();
    bar.onProgress({ phase: "upload", loaded: 20, total: 100 });
    bar.onProgress({ phase: "processing", loaded: 100, total: 100 });
    bar.done();
    expect(written.length).toBe(before);
  });

  it("an interrupt while re-reading what an earlier run sent still says how to finish", () => {
    const tracker = new WriteTracker();
    tracker.begin({ check: "pubset ls --limit 5", rerun: "pubset create big.csv --name B --idempotency-key K" });
    tracker.progress({ phase: "prepare", loaded: 10, total: 100, resumable: true });
    expect(tracker.message()).toContain("finish: pubset create big.csv --name B --idempotency-key K");
  });

  it("tells an interrupted resumable upload how to go on from the chunks the server holds", () => {
    const tracker = new WriteTracker();
    tracker.begin({ check: "pubset ls --limit 5", rerun: "pubset create big.csv --name B --idempotency-key K" });
    tracker.progress({ phase: "upload", loaded: 10, total: 100, resumable: true });
    expect(tracker.message()).toContain("finish: pubset create big.csv --name B --idempotency-key K");
    expect(tracker.message()).toContain("kept for 24 h");
    tracker.begin({ check: "pubset ls --limit 5", rerun: "pubset create small.csv --name S --idempotency-key K" });
    tracker.progress({ phase: "upload", loaded: 10, total: 100 });
    expect(tracker.message()).toContain("nothing was written");
    expect(tracker.message()).not.toContain("finish:");
  });
});

describe("wide tables", () => {
  const columns = Array.from({ length: 24 }, (_, i) => `column_${i + 1}`);
  const rows = [columns.map((_, i) => `value ${i + 1}`), columns.map((_, i) => (i === 0 ? "a much longer value than any terminal column should show in full" : i))];

  it("fits a 24-column table into 80 characters, whole columns, naming the rest", () => {
    const { text, hidden } = fitTable(columns, rows, 80);
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    const shownCount = lines[0]!.trim().split(/\s{2,}/).length;
    expect(shownCount).toBeGreaterThanOrEqual(2);
    expect(hidden).toEqual(columns.slice(shownCount));
    expect(lines[2]).toContain("…");
  });

  it("prints all columns when they fit, and one cut column when even that does not", () => {
    expect(fitTable(["a", "b"], [[1, 2]], 80)).toEqual({ text: "a  b\n1  2\n", hidden: [] });
    const narrow = fitTable(["a_long_column_name", "b"], [["x", "y"]], 10);
    expect(narrow.hidden).toEqual(["b"]);
    for (const line of narrow.text.trimEnd().split("\n")) expect(line.length).toBeLessThanOrEqual(10);
  });

  it("--columns takes names or 1-based numbers; --csv quotes what RFC 4180 says to", () => {
    expect(chosenColumns("column_3,1", columns)).toEqual([2, 0]);
    expect(() => chosenColumns("nope", ["a", "b"])).toThrow('--columns: no column "nope"; the columns are a, b');
    expect(csvText(["a", "b"], [["x,y", 'say "hi"'], [null, 2]])).toBe('a,b\r\n"x,y","say ""hi"""\r\n,2\r\n');
  });
});
