// The Parquet encoder's throughput and output size against DuckDB's writer (docs/columnar.md).
// Generates a ~100 MB mixed-type CSV in /tmp once (BENCH_PARQUET_MB sets the size), then times
// (a) CSV parse + cast + encode in Node, cutting parts every few MB as the service stores
// segments, without and with the column statistics fed by the encoder (as the build feeds them),
// and (b) DuckDB's COPY … TO … (FORMAT parquet) on all cores and on one; prints a Markdown table
// of throughputs and file sizes.
// Run: npx node scripts/bench-parquet.ts (BENCH_PARQUET_MB, BENCH_PARQUET_PART_MB)
import { closeSync, existsSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { DuckDBInstance } from "@duckdb/node-api";
import type { PartMetadata } from "../src/columnar/parquet/index.ts";
import type { TableSchema } from "../src/schema/table-schema.ts";
import { columnFeeds } from "../src/columnar/statistics/column-feed.ts";
import { createSummaries } from "../src/columnar/statistics/table-summary.ts";
import { seededRandom } from "./bench/csv-gen.ts";
import { machineLine, MB } from "./bench/stats.ts";
import "./lib/wasm-modules.ts";

// Loaded after the hook above, so the encoder's Snappy kernel imports as it does in the worker.
const { encodePartMetadata, PartWriter, planKinds, startKinds, writeTail } = await import("../src/columnar/parquet/index.ts");
const { CellDecoder } = await import("../src/csv/cell-decoder.ts");

const TARGET_MB = Number(process.env.BENCH_PARQUET_MB ?? 100);
const CSV_PATH = `/tmp/pubset-bench-parquet-${TARGET_MB}mb.csv`;
const OURS = "/tmp/pubset-bench-parquet-ours.parquet";
/**
 * A segment's size: parts are cut here, as the service cuts stored segments (BENCH_PARQUET_PART_MB,
 * 4 by default; the 100 MiB version of `npm run bench:twin` is built as 4 parts of about 25, and
 * a part past 100,000 distinct values of a column sketches them, which smaller parts never reach).
 */
const SEGMENT_BYTES = Number(process.env.BENCH_PARQUET_PART_MB ?? 4) * MB;
/** Runs of each measure; the best counts, as other work on a shared machine only slows a run down. */
const RUNS = 5;

const SCHEMA: TableSchema = {
  fields: [
    { name: "id", type: "integer" },
    { name: "amount", type: "number" },
    { name: "quantity", type: "integer" },
    { name: "ordered_on", type: "date" },
    { name: "ordered_at", type: "datetime" },
    { name: "paid", type: "boolean" },
    { name: "status", type: "string" },
    { name: "city", type: "string" },
    { name: "note", type: "string" },
  ],
  missingValues: [""],
};

const STATUS = ["paid", "shipped", "pending", "refunded", "cancelled"];
const CITIES = ["Lagos", "Paris", '"Washington, D.C."', "São Paulo", "Tokyo", "Zürich", "Nairobi", "Oslo", "Lima", "東京"];
const WORDS = ["fast", "delivery", "gift", "wrap", "fragile", "call", "before", "leave", "at", "door", "reorder", "bulk", "discount", "naïve", "😀"];

function generate(path: string, megabytes: number): void {
  const random = seededRandom(42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const fd = openSync(path, "w");
  let written = 0;
  let id = 0;
  writeSync(fd, SCHEMA.fields.map((f) => f.name).join(",") + "\n");
  while (written < megabytes * MB) {
    let chunk = "";
    for (let i = 0; i < 10_000; i++) {
      id++;
      const ms = Date.UTC(2020, 0, 1) + Math.floor(random() * 5 * 365 * 86_400_000);
      const iso = new Date(ms).toISOString();
      const words = Array.from({ length: 2 + Math.floor(random() * 8) }, () => pick(WORDS)).join(" ");
      const note = random() < 0.3 ? "" : random() < 0.1 ? `"${words}, ""quoted"""` : words;
      const amount = random() < 0.05 ? "" : (random() * 5000).toFixed(2);
      chunk += `${id},${amount},${1 + Math.floor(random() * 20)},${iso.slice(0, 10)},${iso},${random() < 0.5 ? "true" : "false"},${pick(STATUS)},${pick(CITIES)},${note}\n`;
    }
    written += writeSync(fd, chunk);
  }
  closeSync(fd);
}

/** CSV → stitched Parquet in memory, one part per segment; returns the file's size. */
function encodeOurs(csv: Uint8Array, statistics = false): { bytes: number; rows: number; parts: number; metadataBytes: number } {
  const decoder = new CellDecoder();
  const kinds = startKinds(SCHEMA);
  const parts: PartMetadata[] = [];
  const fd = openSync(OURS, "w");
  writeSync(fd, "PAR1");
  let header = true;
  const newWriter = () => new PartWriter(SCHEMA, kinds, statistics ? { sinks: columnFeeds(createSummaries(SCHEMA), SCHEMA) } : {});
  let writer = newWriter();
  let segmentStart = 0;
  let rows = 0;
  let metadataBytes = 0;
  const endPart = () => {
    const result = writer.finish();
    if (!result.ok) throw new Error(`bench: kinds widened to ${result.kinds.join(",")}`);
    for (const piece of writer.takeBytes()) writeSync(fd, piece);
    const stored = encodePartMetadata(result.metadata);
    metadataBytes += stored.head.length + stored.pages.length;
    parts.push(result.metadata);
    writer = newWriter();
  };
  // As the build reads a segment (src/columnar/segment-rows.ts): its bytes decoded into cells, 256 KiB at a time.
  const CHUNK = 1 << 18;
  const drain = () => {
    for (let batch = decoder.take(); batch !== null; batch = decoder.take()) {
      if (header && batch.records > 0) {
        batch.dropFirst();
        header = false;
      }
      writer.addBatch(batch);
      rows += batch.records;
    }
  };
  for (let at = 0; at < csv.length; at += CHUNK) {
    decoder.push(csv.subarray(at, Math.min(csv.length, at + CHUNK)));
    drain();
    for (const piece of writer.takeBytes()) writeSync(fd, piece);
    if (at + CHUNK - segmentStart >= SEGMENT_BYTES) {
      endPart();
      segmentStart = at + CHUNK;
    }
  }
  decoder.finish();
  drain();
  endPart();
  if (planKinds(parts).reencode.length > 0) throw new Error("bench: parts disagree on kinds");
  writeSync(fd, writeTail(SCHEMA, parts));
  closeSync(fd);
  return { bytes: statSync(OURS).size, rows, parts: parts.length, metadataBytes };
}

/** The CSV parse alone (the same decoder and chunks), to tell its share from the encoder's. */
function parseOnly(csv: Uint8Array): number {
  const decoder = new CellDecoder();
  let cells = 0;
  const drain = () => {
    for (let batch = decoder.take(); batch !== null; batch = decoder.take()) cells += batch.ends[batch.records - 1]! - batch.first;
  };
  for (let at = 0; at < csv.length; at += 1 << 18) {
    decoder.push(csv.subarray(at, Math.min(csv.length, at + (1 << 18))));
    drain();
  }
  decoder.finish();
  drain();
  return cells;
}

async function main(): Promise<void> {
  if (!existsSync(CSV_PATH)) {
    process.stderr.write(`bench parquet: writing ${CSV_PATH}…\n`);
    generate(CSV_PATH, TARGET_MB);
  }
  const csv = readFileSync(CSV_PATH);
  const csvMB = csv.length / MB;
  const db = await (await DuckDBInstance.create(":memory:")).connect();
  const cores = Math.max(1, (await import("node:os")).availableParallelism());
  const copy = async (threads: number, options: string, to: string): Promise<number> => {
    await db.run(`SET threads TO ${threads}`);
    const start = performance.now();
    await db.run(`COPY (SELECT * FROM read_csv('${CSV_PATH}')) TO '${to}' (${options})`);
    return (performance.now() - start) / 1000;
  };
  const snappyPath = "/tmp/pubset-bench-parquet-duck-snappy.parquet";
  const zstdPath = "/tmp/pubset-bench-parquet-duck-zstd.parquet";
  const ours: number[] = [];
  const withStatistics: number[] = [];
  const parse: number[] = [];
  const duckAll: number[] = [];
  const duckOne: number[] = [];
  let result = { bytes: 0, rows: 0, parts: 0, metadataBytes: 0 };
  // Alternated, so a change in the machine's load falls on every measure alike.
  for (let run = 0; run < RUNS; run++) {
    process.stderr.write(`bench parquet: run ${run + 1}/${RUNS}…\n`);
    let start = performance.now();
    result = encodeOurs(csv);
    ours.push((performance.now() - start) / 1000);
    start = performance.now();
    encodeOurs(csv, true);
    withStatistics.push((performance.now() - start) / 1000);
    start = performance.now();
    parseOnly(csv);
    parse.push((performance.now() - start) / 1000);
    duckAll.push(await copy(cores, "FORMAT parquet", snappyPath));
    duckOne.push(await copy(1, "FORMAT parquet", snappyPath));
  }
  await copy(cores, "FORMAT parquet, COMPRESSION zstd", zstdPath);
  const check = await db.runAndReadAll(`select count(*) from read_parquet('${OURS}')`);
  if (Number(check.getRows()[0]![0]) !== result.rows) throw new Error("bench: DuckDB reads another row count from our file");
  const snappySize = statSync(snappyPath).size;
  const zstdSize = statSync(zstdPath).size;
  const rate = (seconds: number[]) => csvMB / Math.min(...seconds);
  const oursRate = rate(ours);
  const encodeRate = csvMB / (Math.min(...ours) - Math.min(...parse));
  const row = (measure: string, value: string, ratio = "") => console.log(`| ${measure} | ${value} | ${ratio} |`);
  console.log(`\nParquet encoder vs DuckDB COPY … (FORMAT parquet) — ${csvMB.toFixed(1)} MB CSV, ${result.rows} rows, ${result.parts} parts; best of ${RUNS}; ${machineLine()}\n`);
  console.log("| Measure | Value | pubset vs DuckDB |");
  console.log("|---|---:|---:|");
  row("pubset: CSV parse + cast + encode, MB of CSV/s (one thread)", oursRate.toFixed(1));
  row("… of which CSV parse alone (CellDecoder), MB/s", rate(parse).toFixed(1));
  row("… of which cast + encode, MB/s", encodeRate.toFixed(1));
  const statisticsShare = (Math.min(...withStatistics) - Math.min(...ours)) / Math.min(...withStatistics);
  row("pubset with the column statistics fed by the encoder, MB/s", rate(withStatistics).toFixed(1), `statistics: ${(statisticsShare * 100).toFixed(0)} % of it`);
  row(`DuckDB, ${cores} threads (all cores), MB/s`, rate(duckAll).toFixed(1), `${(oursRate / rate(duckAll)).toFixed(2)}×`);
  row("DuckDB, 1 thread, MB/s", rate(duckOne).toFixed(1), `${(oursRate / rate(duckOne)).toFixed(2)}×`);
  row("pubset file (Snappy)", `${(result.bytes / MB).toFixed(1)} MB`);
  row("DuckDB file, Snappy", `${(snappySize / MB).toFixed(1)} MB`, `${(result.bytes / snappySize).toFixed(2)}×`);
  row("DuckDB file, ZSTD", `${(zstdSize / MB).toFixed(1)} MB`, `${(result.bytes / zstdSize).toFixed(2)}×`);
  row("Part metadata stored beside the parts (JSON)", `${(result.metadataBytes / 1000).toFixed(1)} kB`);
}

await main();
