// The column statistics' cost in workerd, steady enough to tell a few milliseconds apart
// (docs/statistics.md#cost). One worker bundles the part writer and the statistics of each
// checkout given (BENCH_STATISTICS_ROOTS, a comma list; default this tree), holds one 25 MiB part
// of `npm run bench:twin`'s CSV in memory, and encodes it as the build does (cells decoded by the
// cell kernel, every column written), once per variant per pass, alternating variants and
// reversing their order every other pass, all inside one request. Local workerd advances
// `performance.now()` while a request computes (the platform does not), so each encoding is
// timed where it runs, with no HTTP, R2 or inflating around it, and a variant is compared with
// the first by the median of their differences pass by pass, which cancels the shared machine's
// slow spells (a whole request can run 1.4× slower). Modes (BENCH_STATISTICS_MODES, a comma list;
// the first is the base): `off` (no sinks), `quiet` (sinks that do nothing: the encoder's own
// cost of being listened to), `on` (every column's statistics), or column names joined by `.`
// (those columns' statistics, quiet sinks for the rest); `@past` after a mode encodes the part as
// a version's later part, whose first put every column past the distinct limit (skipDistinctKeys).
// BENCH_STATISTICS_COLUMNS keeps only some columns of the CSV. To tell what the inflating does to
// the statistics, a part read from memory (BENCH_STATISTICS_INFLATE=0) can be given, before each
// 256 KiB of CSV, one of the inflate's side effects alone: BENCH_STATISTICS_TOUCH=BYTES writes a
// byte per cache line of a buffer that big (the cache evicted), BENCH_STATISTICS_GARBAGE=N makes
// N 64 KiB arrays (the stream's chunks left to the collector), BENCH_STATISTICS_YIELD=1 waits
// for a timer (the event loop entered). Not part of `npm run bench`. Run: `npx node scripts/bench-statistics-ab.ts`
// (BENCH_STATISTICS_PASSES per request, default 4; BENCH_STATISTICS_ROUNDS requests, default 8;
// BENCH_PORTS as for the bench).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CsvRecordDecoder } from "../src/csv/index.ts";
import { writeCsvFile } from "./bench/csv-gen.ts";
import { WRANGLER_BIN } from "./bench/run-bounded.ts";
import { freePort, startServer } from "./bench/server.ts";
import { machineLine, median, MIB, runBenchPart } from "./bench/stats.ts";
import { PROJECT_ROOT } from "./lib/paths.ts";

const PASSES = Number(process.env.BENCH_STATISTICS_PASSES ?? 4);
const ROUNDS = Number(process.env.BENCH_STATISTICS_ROUNDS ?? 8);
/**
 * Each encoding inflates the part from raw DEFLATE first, as the build does
 * (BENCH_STATISTICS_INFLATE=0: read from memory; =reads: the stream read as it hands its bytes,
 * 4 KiB a read; =fflate: inflated by fflate in JavaScript, no stream).
 */
const INFLATE = process.env.BENCH_STATISTICS_INFLATE !== "0";
const COMPATIBILITY = `compatibility_date = "2026-10-20"\ncompatibility_flags = ["nodejs_compat"]\n`;

/** The worker: `POST /load` takes the CSV; `GET /ab?variants=CODE:MODE,…&passes=N` answers each encoding's milliseconds. */
const WORKER = `
const TYPES = { id: "integer", amount: "number", quantity: "integer", ordered_at: "datetime", shipped_on: "date" };
let names = [];
let schema = null;
let csv = new Uint8Array(0);
/** The CSV as groups of raw DEFLATE each inflated alone, as the build's segment parts are (inflate=1). */
let deflatedGroups = [];
/** CSV bytes a group holds: about 1 MiB deflated, as the build groups a segment's parts. */
const RAW_PER_GROUP = 3 * 1024 * 1024;

async function deflate(bytes) {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate-raw"))).arrayBuffer());
}

/** How an encoding inflates: the platform's stream as the build reads it (load?inflate=1), 4 KiB reads of it (inflate=reads), or fflate (inflate=fflate). */
let inflateWith = "stream";
/** The CSV as raw DEFLATE when each encoding inflates it first (load?inflate=1), else null. */
let deflated = null;
/** Inflated bytes handed to the cell decoder at a time (src/columnar/segment-rows.ts GATHER_BYTES). */
const GATHER = 262144;

/** What runs before each GATHER bytes of a part read from memory (/load's touch, garbage and yield). */
const between = { touched: null, garbage: 0, yield: false };
let sideEffects = 0;

async function betweenBatches() {
  const touched = between.touched;
  if (touched !== null) for (let i = 0; i < touched.length; i += 64) sideEffects += ++touched[i];
  for (let i = 0; i < between.garbage; i++) sideEffects += new Uint8Array(65536)[i];
  if (between.yield) await new Promise((resolve) => setTimeout(resolve, 0));
}

/** Chunks of any size, handed on to \`push\` GATHER bytes at a time (the last one shorter). */
function gatherer(push) {
  const gathered = new Uint8Array(GATHER);
  let held = 0;
  return {
    add(chunk) {
      for (let at = 0; at < chunk.length; ) {
        const n = Math.min(GATHER - held, chunk.length - at);
        gathered.set(chunk.subarray(at, at + n), held);
        held += n;
        at += n;
        if (held === GATHER) {
          push(gathered);
          held = 0;
        }
      }
    },
    finish() {
      push(gathered.subarray(0, held));
    },
  };
}

class QuietSink {
  nulls() {}
  number() {}
  doubles() {}
  days() {}
  int64s() {}
  big() {}
  text() {}
  utf8() {}
  keyedUtf8() {}
  pageDone() {}
  booleans() {}
  zoned() {}
}

async function encode(code, given) {
  const [mode, past] = given.split("@");
  const summary = code.createSummaries(schema);
  // "@past": a later part of a version whose first part put every column past the distinct limit.
  if (past === "past") code.skipDistinctKeys(summary, names.map(() => true));
  let sinks = null;
  if (mode === "quiet") sinks = names.map(() => new QuietSink());
  else if (mode === "on") sinks = code.columnFeeds(summary, schema);
  else if (mode !== "off") {
    const feeds = code.columnFeeds(summary, schema);
    const only = mode.split(".");
    sinks = names.map((name, i) => (only.includes(name) ? feeds[i] : new QuietSink()));
  }
  const writer = new code.PartWriter(schema, code.startKinds(schema), sinks ? { sinks } : {});
  const decoder = new code.CellDecoder({ midFile: true });
  let header = true;
  let bytes = 0;
  const drain = () => {
    for (let batch = decoder.take(); batch !== null; batch = decoder.take()) {
      if (header && batch.records > 0) {
        batch.dropFirst();
        header = false;
      }
      if (batch.records === 0) continue;
      if (!writer.addBatch(batch)) throw new Error("the part needs wider kinds");
      for (const part of writer.takeBytes()) bytes += part.length;
    }
  };
  const push = (bytes) => {
    decoder.push(bytes);
    drain();
  };
  if (deflated === null) {
    for (let at = 0; at < csv.length; at += GATHER) {
      if (between.touched !== null || between.garbage > 0 || between.yield) await betweenBatches();
      push(csv.subarray(at, Math.min(csv.length, at + GATHER)));
    }
  } else if (inflateWith === "fflate") {
    // Inflated in JavaScript, synchronously, 64 KiB of DEFLATE at a time: no stream, no awaits.
    const gathering = gatherer(push);
    const inflater = new Inflate((chunk) => gathering.add(chunk));
    for (let at = 0; at < deflated.length; at += 65536) inflater.push(deflated.subarray(at, Math.min(deflated.length, at + 65536)), at + 65536 >= deflated.length);
    gathering.finish();
  } else if (inflateWith === "stream") {
    // Inflated as the build inflates a segment (src/storage/segment-inflate.ts inflateParts): each
    // group of about 1 MiB of DEFLATE written to a platform stream of its own, GATHER bytes read
    // back at a time (BYOB), the group drained before the next.
    let output = new Uint8Array(GATHER);
    let filled = 0;
    let inflated = 0;
    for (const group of deflatedGroups) {
      const inflate = new DecompressionStream("deflate-raw");
      const writer = inflate.writable.getWriter();
      const written = Promise.all([writer.write(group), writer.close()]);
      const reader = inflate.readable.getReader({ mode: "byob" });
      for (;;) {
        const { done, value } = await reader.readAtLeast(GATHER - filled, output.subarray(filled));
        output = new Uint8Array(value.buffer);
        filled += value.length;
        inflated += value.length;
        if (filled === GATHER) {
          push(output);
          filled = 0;
        }
        if (done) break;
      }
      await written;
    }
    if (inflated !== csv.length) throw new Error("inflated " + inflated + " bytes, not " + csv.length);
    push(output.subarray(0, filled));
  } else {
    // The platform's stream read as it hands its bytes, 4 KiB a read, gathered into GATHER bytes.
    const reader = new Blob([deflated]).stream().pipeThrough(new DecompressionStream("deflate-raw")).getReader();
    const gathering = gatherer(push);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      gathering.add(value);
    }
    gathering.finish();
  }
  decoder.finish();
  drain();
  if (!writer.finish().ok) throw new Error("the part needs wider kinds");
  for (const part of writer.takeBytes()) bytes += part.length;
  if (sinks !== null && mode !== "quiet") bytes += code.encodeSummary(summary).length;
  return bytes;
}

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/load") {
      csv = new Uint8Array(await request.arrayBuffer());
      names = new TextDecoder().decode(csv.subarray(0, csv.indexOf(10))).split(",");
      schema = { fields: names.map((name) => ({ name, type: TYPES[name] ?? "string" })), missingValues: [""] };
      const touch = Number(url.searchParams.get("touch") ?? 0);
      between.touched = touch > 0 ? new Uint8Array(touch) : null;
      between.garbage = Number(url.searchParams.get("garbage") ?? 0);
      between.yield = url.searchParams.get("yield") === "1";
      inflateWith = { fflate: "fflate", reads: "reads" }[url.searchParams.get("inflate")] ?? "stream";
      deflated = url.searchParams.get("inflate") !== "0" ? await deflate(csv) : null;
      // About 1 MiB of DEFLATE a group, each whole (INFLATE_GROUP_BYTES in segment-inflate.ts).
      deflatedGroups = [];
      if (deflated !== null) for (let at = 0; at < csv.length; at += RAW_PER_GROUP) deflatedGroups.push(await deflate(csv.subarray(at, Math.min(csv.length, at + RAW_PER_GROUP))));
      return Response.json({ bytes: csv.length });
    }
    if (url.pathname !== "/ab") return Response.json({ ok: true });
    const variants = url.searchParams.get("variants").split(",").map((variant) => variant.split(":"));
    const passes = Number(url.searchParams.get("passes"));
    const times = variants.map(() => []);
    for (let pass = 0; pass < passes; pass++) {
      const order = variants.map((_, i) => i);
      if (pass % 2 === 1) order.reverse();
      for (const i of order) {
        const [code, mode] = variants[i];
        const started = performance.now();
        await encode(CODES[Number(code)], mode);
        times[i].push(performance.now() - started);
      }
    }
    return Response.json({ times });
  },
};
`;

/** The worker's entry: WORKER with each checkout's modules imported as CODES[i]. */
function entry(roots: string[]): string {
  const imports = roots.flatMap((root, i) => [
    `import { PartWriter as PartWriter${i}, startKinds as startKinds${i} } from ${JSON.stringify(join(root, "src/columnar/parquet/index.ts"))};`,
    `import { CellDecoder as CellDecoder${i} } from ${JSON.stringify(join(root, "src/csv/cell-decoder.ts"))};`,
    `import { columnFeeds as columnFeeds${i} } from ${JSON.stringify(join(root, "src/columnar/statistics/column-feed.ts"))};`,
    `import { createSummaries as createSummaries${i}, encodeSummary as encodeSummary${i}, skipDistinctKeys as skipDistinctKeys${i} } from ${JSON.stringify(join(root, "src/columnar/statistics/table-summary.ts"))};`,
  ]);
  const codes = roots.map((_, i) => `{ PartWriter: PartWriter${i}, startKinds: startKinds${i}, CellDecoder: CellDecoder${i}, columnFeeds: columnFeeds${i}, createSummaries: createSummaries${i}, encodeSummary: encodeSummary${i}, skipDistinctKeys: skipDistinctKeys${i} }`);
  const fflate = JSON.stringify(join(PROJECT_ROOT, "node_modules/fflate/esm/browser.js"));
  return `import { Inflate } from ${fflate};\n${imports.join("\n")}\nconst CODES = [${codes.join(", ")}];\n${WORKER}`;
}

/** The CSV with only `columns` (all when undefined), quoted as RFC 4180 wants. */
function csvWith(path: string, columns: string[] | undefined): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(readFileSync(path));
  if (!columns) return bytes;
  const decoder = new CsvRecordDecoder();
  const records = [...decoder.push(new TextDecoder().decode(bytes)), ...decoder.finish()];
  const keep = columns.map((name) => {
    const at = records[0]!.indexOf(name);
    if (at < 0) throw new Error(`bench statistics ab: no column ${name}`);
    return at;
  });
  const quoted = (cell: string) => (/[",\n\r]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);
  return new TextEncoder().encode(records.map((record) => keep.map((c) => quoted(record[c] ?? "")).join(",")).join("\n") + "\n");
}

async function main(): Promise<number> {
  const roots = (process.env.BENCH_STATISTICS_ROOTS ?? PROJECT_ROOT).split(",").map((root) => resolve(root));
  const modes = (process.env.BENCH_STATISTICS_MODES ?? "off,quiet,on").split(",");
  const work = mkdtempSync(join(tmpdir(), "pubset-bench-statistics-ab-"));
  try {
    writeFileSync(join(work, "entry.js"), entry(roots));
    writeFileSync(join(work, "wrangler.toml"), `name = "statistics-ab"\nmain = "entry.js"\n${COMPATIBILITY}`);
    execFileSync(process.execPath, [WRANGLER_BIN, "deploy", "--dry-run", "--outdir", join(work, "dist")], { cwd: work, stdio: ["ignore", "ignore", "inherit"] });
    // Served as bundled (wrangler's default rules load the .wasm files beside it as compiled modules).
    writeFileSync(join(work, "wrangler.toml"), `name = "statistics-ab"\nmain = "dist/entry.js"\n${COMPATIBILITY}`);
    mkdirSync(join(work, "state"));
    const build = { dir: work, script: "dist/entry.js", bundleBytes: 0, bundleGzipBytes: 0 };
    const server = await startServer(build, join(work, "state"), await freePort(), join(work, "wrangler.log"));
    try {
      const csv = csvWith(writeCsvFile(join(work, "orders.csv"), 25 * MIB, 31).path, process.env.BENCH_STATISTICS_COLUMNS?.split(","));
      const load = new URLSearchParams({
        inflate: INFLATE ? (["fflate", "reads"].includes(process.env.BENCH_STATISTICS_INFLATE ?? "") ? process.env.BENCH_STATISTICS_INFLATE! : "1") : "0",
        touch: process.env.BENCH_STATISTICS_TOUCH ?? "0",
        garbage: process.env.BENCH_STATISTICS_GARBAGE ?? "0",
        yield: process.env.BENCH_STATISTICS_YIELD ?? "0",
      });
      const loaded = await fetch(`${server.origin}/load?${load}`, { method: "POST", body: csv });
      if (!loaded.ok) throw new Error(`/load answered ${loaded.status}: ${await loaded.text()}`);
      const variants = roots.flatMap((_, code) => modes.map((mode) => `${code}:${mode}`));
      const times: number[][] = variants.map(() => []);
      // The first request warms every path and is not counted.
      for (let round = 0; round <= ROUNDS; round++) {
        const response = await fetch(`${server.origin}/ab?variants=${variants.join(",")}&passes=${round === 0 ? 1 : PASSES}`);
        if (!response.ok) throw new Error(`/ab answered ${response.status}: ${await response.text()}`);
        const answer = (await response.json()) as { times: number[][] };
        if (round > 0) answer.times.forEach((each, i) => times[i]!.push(...each));
      }
      const lowerHalf = (values: number[]) => {
        const low = [...values].sort((a, b) => a - b).slice(0, Math.ceil(values.length / 2));
        return low.reduce((sum, value) => sum + value, 0) / low.length;
      };
      const base = times[0]!;
      console.log(`One 25 MiB part ${INFLATE ? "inflated and " : ""}encoded in one workerd, ${ROUNDS} × ${PASSES} alternated passes, ms each (performance.now()); ${machineLine()}`);
      console.log(`| variant | checkout | median (lower half's mean) | minus ${variants[0]}: median of the passes' differences | difference of the lower halves |`);
      console.log("|---|---|---|---|---|");
      variants.forEach((variant, i) => {
        const each = times[i]!;
        const differences = each.map((ms, pass) => ms - base[pass]!);
        console.log(`| ${variant} | ${roots[Number(variant.split(":")[0])]} | ${median(each).toFixed(1)} (${lowerHalf(each).toFixed(1)}) | ${median(differences).toFixed(1)} | ${(lowerHalf(each) - lowerHalf(base)).toFixed(1)} |`);
      });
    } finally {
      await server.stop();
    }
    return 0;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

runBenchPart("bench statistics ab", main);
