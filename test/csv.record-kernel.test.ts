// The WebAssembly record kernel changes no behaviour: on random CSVs (the scanner's every branch,
// and columns of one type each so inference stays undecided), cut at random chunk boundaries,
// a scanner with the kernel gives exactly what the scanner alone gives: bytes out, record ends,
// checkpoints and the typing state after every chunk, stats, the error and its row, and the
// schema; under inference, declared types (checked by type bit, or cast), other missing values,
// appends checked against a stored schema, and scans resumed from a checkpoint. And on a
// realistic file the kernel does take nearly every record, so these comparisons test it.
import { describe, expect, it } from "vitest";
import { RecordKernel } from "../src/csv/record-kernel.ts";
import { CsvScanner, type CsvCheckpoint, type CsvLimits, type CsvMode } from "../src/csv/scanner.ts";
import { ColumnTyper, type TypingCheckpoint, type TypingPlan } from "../src/schema/column-typer.ts";
import type { Field, FieldType } from "../src/schema/table-schema.ts";
import { scanInChunks } from "./helpers/chunked-scan.ts";
import { randomCsv, randomCuts, randomSetup } from "./helpers/random-csv.ts";
import { mulberry32, pick, randomInt, type Random } from "./helpers/random.ts";

interface Resume {
  scan: CsvCheckpoint;
  typing: TypingCheckpoint | null;
}

/** Counts what the kernel takes. */
class CountingKernel extends RecordKernel {
  total = 0;
  override take(buf: Uint8Array, from: number, end: number, columns: number, fresh: boolean): number {
    const stop = super.take(buf, from, end, columns, fresh);
    this.total += this.taken;
    return stop;
  }
}

/** `window`: the kernel's (0: no kernel). */
function scan(window: number, bytes: Uint8Array, cuts: number[], mode: CsvMode, limits: CsvLimits, plan: TypingPlan | null, resume?: Resume) {
  const typer = plan === null ? null : new ColumnTyper(plan);
  if (typer !== null && resume) typer.resume(resume.scan, resume.typing);
  const kernel = window > 0 ? new CountingKernel(typer, limits.maxFieldBytes, window) : null;
  const scanner = new CsvScanner(mode, limits, typer, resume?.scan, kernel);
  const step = (out: Uint8Array) => ({
    out: [...out].join("."),
    recordEnd: scanner.recordEnd,
    rows: scanner.rowsAtRecordEnd,
    checkpoint: scanner.checkpoint,
    typing: typer?.checkpoint() ?? null,
  });
  const result = scanInChunks(scanner, bytes, cuts, step, () => ({ stats: scanner.stats, schema: typer?.schema() ?? null }));
  return { result, taken: kernel?.total ?? 0 };
}

const TYPES: FieldType[] = ["integer", "number", "boolean", "date", "datetime", "string", "time"];

/** A declared field for `name`: by type bit alone, or with options that need a cast. */
function randomField(random: Random, name: string): Field {
  const type = pick(random, TYPES);
  const field: Field = { name, type };
  const roll = random();
  if (roll < 0.15) field.constraints = { required: true };
  else if (roll < 0.25 && type === "number") field.decimalChar = ",";
  else if (roll < 0.25 && type === "boolean") Object.assign(field, { trueValues: ["yes"], falseValues: ["no"] });
  else if (roll < 0.25 && type === "date") field.format = "%Y-%m-%d";
  return field;
}

/** The header names a table CSV starts with (as plain text: quoted names may not match, which both scans refuse alike). */
function headerNames(bytes: Uint8Array): string[] {
  const text = new TextDecoder().decode(bytes).replace(/^\ufeff/, "");
  return text.split(/\r?\n/, 1)[0]!.split(",");
}

function randomPlan(random: Random, bytes: Uint8Array, mode: CsvMode): TypingPlan | null {
  const roll = random();
  if (roll < 0.1) return null;
  if (mode.kind === "rows") {
    const fields = Array.from({ length: mode.expectedColumns }, (_, i) => ({ ...randomField(random, `c${i}`) }));
    const missingValues = random() < 0.2 ? ["", "NA"] : [""];
    return { kind: "check", schema: { fields, missingValues } };
  }
  if (roll < 0.6) return { kind: "infer", declared: null };
  const names = [...new Set(headerNames(bytes))].filter(() => random() < 0.5);
  const declared = { fields: names.map((name) => randomField(random, name)), ...(random() < 0.2 ? { missingValues: ["", "-"] } : {}) };
  return { kind: "infer", declared };
}

function compare(random: Random, bytes: Uint8Array, cuts: number[], mode: CsvMode, limits: CsvLimits): number {
  const plan = randomPlan(random, bytes, mode);
  const context = `input ${JSON.stringify(new TextDecoder().decode(bytes))} cut at ${cuts.join(",")} mode ${JSON.stringify(mode)} limits ${JSON.stringify(limits)} plan ${JSON.stringify(plan)}`;
  // Small windows make the kernel copy again within a buffer, as it does for large buffers.
  const window = random() < 0.5 ? randomInt(random, 1, 64) : 1 << 20;
  const fast = scan(window, bytes, cuts, mode, limits, plan);
  expect(fast.result, `${context} window ${window}`).toEqual(scan(0, bytes, cuts, mode, limits, plan).result);
  // Resumed after a random record end, as a resumable upload's next chunk is.
  const typer = plan === null ? null : new ColumnTyper(plan);
  const head = new CsvScanner(mode, limits, typer);
  try {
    head.push(bytes.slice(0, randomInt(random, 0, bytes.length)));
  } catch {
    return fast.taken;
  }
  const checkpoint = head.checkpoint;
  if (checkpoint === null) return fast.taken;
  const resume: Resume = structuredClone({ scan: checkpoint, typing: typer?.checkpoint() ?? null });
  const rest = bytes.slice(head.inputRecordEnd);
  const restCuts = randomCuts(random, rest.length);
  const resumed = scan(window, rest, restCuts, mode, limits, plan, structuredClone(resume));
  expect(resumed.result, `${context} window ${window} resumed ${JSON.stringify(resume)}`).toEqual(scan(0, rest, restCuts, mode, limits, plan, structuredClone(resume)).result);
  return fast.taken + resumed.taken;
}

describe("CsvScanner with the record kernel against the scanner alone", () => {
  it("agrees on 4,000 random CSVs, typed and not, under every kind of typing plan", () => {
    const random = mulberry32(9421);
    let taken = 0;
    for (let round = 0; round < 4000; round++) {
      const bytes = randomCsv(random, round % 2 === 0);
      const { mode, limits } = randomSetup(random);
      const cuts = random() < 0.3 ? [] : randomCuts(random, bytes.length);
      taken += compare(random, bytes, cuts, mode, limits);
    }
    // The kernel did the work in these comparisons, not only the scanner.
    expect(taken).toBeGreaterThan(4000);
  });

  it("takes nearly every record of a realistic file, and types it as the scanner does", () => {
    const random = mulberry32(3339);
    const lines = ["id,name,amount,when,day,ok,note"];
    for (let id = 1; id <= 5000; id++) {
      const note = random() < 0.3 ? `"said ""hi"", then\nleft"` : pick(random, ["", "Zürich", "São Paulo", "plain"]);
      lines.push(`${id},"Smith, Ana",${(random() * 100).toFixed(2)},2024-01-0${randomInt(random, 1, 9)}T10:00:00Z,2024-02-${10 + randomInt(random, 0, 18)},${pick(random, ["true", "FALSE"])},${note}`);
    }
    const bytes = new TextEncoder().encode(lines.join("\r\n") + "\r\n");
    const limits = { maxColumns: 100, maxFieldBytes: 1000, maxHeaderBytes: 1000 };
    const cuts = Array.from({ length: Math.floor(bytes.length / 65_536) }, (_, i) => (i + 1) * 65_536);
    const plan: TypingPlan = { kind: "infer", declared: null };
    const fast = scan(1 << 20, bytes, cuts, { kind: "table" }, limits, plan);
    expect(fast.result).toEqual(scan(0, bytes, cuts, { kind: "table" }, limits, plan).result);
    expect(fast.taken).toBeGreaterThan(4990);
    // A window far smaller than the buffers: the same result, still from the kernel.
    const windowed = scan(4096, bytes, cuts, { kind: "table" }, limits, plan);
    expect(windowed.result).toEqual(fast.result);
    expect(windowed.taken).toBeGreaterThan(4900);
    const schema = (fast.result.steps.at(-1) as { schema: { fields: Field[] } }).schema;
    expect(schema.fields.map((f) => f.type)).toEqual(["integer", "string", "number", "datetime", "date", "boolean", "string"]);
  });

  it("takes declared integer and number columns whose cells have leading zeros, as the typer reads them", () => {
    const random = mulberry32(1234);
    const lines = ["zip,amount,code"];
    for (let i = 1; i <= 2000; i++) {
      const zip = pick(random, ["01234", "-007", "+012", "00", "98765", "0"]);
      lines.push(`${zip},${pick(random, ["007.5", "00e3", "-01", "1.5"])},${zip}`);
    }
    const bytes = new TextEncoder().encode(lines.join("\n") + "\n");
    const limits = { maxColumns: 100, maxFieldBytes: 1000, maxHeaderBytes: 1000 };
    const plan: TypingPlan = { kind: "infer", declared: { fields: [{ name: "zip", type: "integer" }, { name: "amount", type: "number" }] } };
    const fast = scan(1 << 20, bytes, [], { kind: "table" }, limits, plan);
    expect(fast.result).toEqual(scan(0, bytes, [], { kind: "table" }, limits, plan).result);
    expect(fast.taken).toBeGreaterThan(1990);
    const schema = (fast.result.steps.at(-1) as { schema: { fields: Field[] } }).schema;
    expect(schema.fields.map((f) => f.type)).toEqual(["integer", "number", "string"]);
  });
});
