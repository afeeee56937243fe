// The column statistics' CPU time inside the Parquet encoder (docs/statistics.md#cost), where
// scripts/bench-statistics-feed.ts replays their calls alone: one 25 MiB part of `npm run
// bench:twin`'s CSV decoded and encoded by the part writer as the build does, without sinks
// ("off"), with sinks that do nothing ("noop": what the encoder does only because a sink
// listens), with every column's feed ("on"), and with one column's feed, or the numeric or the
// text columns' ("numeric", "text"), beside sinks that do nothing for the others. Variants are
// alternated in one process; BENCH_STATISTICS_BASE_ROOT=<another checkout> alternates its code
// with this tree's. Not part of `npm run bench`. Run: `npx node scripts/bench-statistics-encoder.ts`
// (BENCH_STATISTICS_RUNS, default 9; BENCH_STATISTICS_VARIANTS, a comma list, default
// off,noop,on,numeric,text).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import type { TableSchema } from "../src/schema/table-schema.ts";
import { writeCsvFile } from "./bench/csv-gen.ts";
import "./lib/wasm-modules.ts";

/** One checkout's encoder and statistics, loaded after the hook above so the kernels import as in the worker. */
async function load(root: string) {
  const { PartWriter, startKinds } = await import(`${root}/src/columnar/parquet/index.ts`);
  const { CellDecoder } = await import(`${root}/src/csv/cell-decoder.ts`);
  const { columnFeeds } = await import(`${root}/src/columnar/statistics/column-feed.ts`);
  const { createSummaries, encodeSummary } = await import(`${root}/src/columnar/statistics/table-summary.ts`);
  return { PartWriter, startKinds, CellDecoder, columnFeeds, createSummaries, encodeSummary };
}
type Code = Awaited<ReturnType<typeof load>>;

const trees: { label: string; code: Code }[] = [{ label: "this tree", code: await load(new URL("..", import.meta.url).pathname) }];
const base = process.env.BENCH_STATISTICS_BASE_ROOT;
if (base) trees.unshift({ label: "base", code: await load(base) });

const csvPath = join(tmpdir(), "pubset-bench-statistics-part.csv");
if (!existsSync(csvPath)) writeCsvFile(csvPath, 25 * 1024 * 1024, 31);
const csv = new Uint8Array(readFileSync(csvPath));
const header = ["id", "customer", "email", "city", "amount", "quantity", "ordered_at", "shipped_on", "status", "note"];
const TYPES: Record<string, "integer" | "number" | "date" | "datetime"> = { id: "integer", amount: "number", quantity: "integer", ordered_at: "datetime", shipped_on: "date" };
const NUMERIC = new Set(Object.keys(TYPES));
const schema: TableSchema = { fields: header.map((name) => ({ name, type: TYPES[name] ?? "string" })), missingValues: [""] };

/** A sink that hears every call and keeps nothing (a base without the run calls never makes them). */
const silent = () => ({ nulls() {}, number() {}, doubles() {}, days() {}, int64s() {}, big() {}, text() {}, utf8() {}, keyedUtf8() {}, pageDone() {}, booleans() {}, zoned() {} });

/** Whether `variant` feeds column `name` (the others get a silent sink). */
function feeds(variant: string, name: string): boolean {
  return variant === "on" || variant === name || (variant === "numeric" && NUMERIC.has(name)) || (variant === "text" && !NUMERIC.has(name));
}

/** Process CPU milliseconds of decoding and encoding the part (and encoding its summary) as `variant` says. */
function encode(code: Code, variant: string): number {
  const start = process.cpuUsage();
  const summary = variant === "off" || variant === "noop" ? null : code.createSummaries(schema);
  const fed = summary === null ? null : code.columnFeeds(summary, schema);
  const sinks = variant === "off" ? undefined : header.map((name, i) => (fed !== null && feeds(variant, name) ? fed[i] : silent()));
  const writer = new code.PartWriter(schema, code.startKinds(schema), sinks ? { sinks } : {});
  const decoder = new code.CellDecoder();
  let first = true;
  const drain = () => {
    for (let batch = decoder.take(); batch !== null; batch = decoder.take()) {
      if (first && batch.records > 0) {
        batch.dropFirst();
        first = false;
      }
      writer.addBatch(batch);
    }
  };
  // As the build reads a segment: 256 KiB of CSV at a time.
  for (let at = 0; at < csv.length; at += 1 << 18) {
    decoder.push(csv.subarray(at, Math.min(csv.length, at + (1 << 18))));
    drain();
    writer.takeBytes();
  }
  decoder.finish();
  drain();
  if (!writer.finish().ok) throw new Error("bench statistics encoder: the part's kinds widened");
  writer.takeBytes();
  if (summary !== null) code.encodeSummary(summary);
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}

const RUNS = Number(process.env.BENCH_STATISTICS_RUNS ?? 9);
const variants = (process.env.BENCH_STATISTICS_VARIANTS ?? "off,noop,on,numeric,text").split(",");
const pairs = trees.flatMap((tree) => variants.map((variant) => ({ tree, variant, times: [] as number[] })));
// Two rounds to warm every path up, then RUNS alternated rounds, every other one in reverse order.
for (let i = 0; i < 2; i++) for (const pair of pairs) encode(pair.tree.code, pair.variant);
for (let run = 0; run < RUNS; run++) for (const pair of run % 2 ? [...pairs].reverse() : pairs) pair.times.push(encode(pair.tree.code, pair.variant));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
console.log(`one 25 MiB part, Node ${process.version}, process CPU time, median (best) of ${RUNS}, alternated`);
for (const { tree, variant, times } of pairs) console.log(`${tree.label.padEnd(10)} ${variant.padEnd(11)} ${median(times).toFixed(1)} ms (${Math.min(...times).toFixed(1)})`);
