// The cost of column statistics against the Parquet build they ride on (docs/statistics.md#cost):
// observing ~1M rows of mixed types in Node, reported as ns per cell and as MB/s of the CSV those
// rows came from, row by row and column by column; then encoding, decoding and merging the
// summary, and its size; every time is process CPU time. Not part of `npm run bench`. Run: `npx node scripts/bench-statistics.ts`
// (BENCH_STATISTICS_ROWS sets the rows, default 1,000,000).
import { statisticsDocument } from "../src/columnar/statistics/document.ts";
import { createSummaries, decodeSummary, encodeSummary, mergeSummaries, observeColumns, observeRow } from "../src/columnar/statistics/table-summary.ts";
import { typedRow, type Cell } from "../src/schema/cast.ts";
import type { FieldType, TableSchema } from "../src/schema/table-schema.ts";

const ROWS = Number(process.env.BENCH_STATISTICS_ROWS ?? 1_000_000);
const RUNS = 3;

let seed = 42;
function random(): number {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const day = (offset: number) => new Date(Date.UTC(1950, 0, 1) + offset * 86_400_000).toISOString();

const COLUMNS: { name: string; type: FieldType; cell: (row: number) => string }[] = [
  { name: "id", type: "integer", cell: (row) => String(row + 1) },
  { name: "quantity", type: "integer", cell: () => (random() < 0.05 ? "" : String(Math.floor(random() * 500))) },
  { name: "price", type: "number", cell: () => (random() * 1000).toFixed(2) },
  { name: "ratio", type: "number", cell: () => String(random()) },
  { name: "active", type: "boolean", cell: () => (random() < 0.5 ? "true" : "false") },
  { name: "day", type: "date", cell: () => day(Math.floor(random() * 30_000)).slice(0, 10) },
  { name: "at", type: "datetime", cell: () => `${day(Math.floor(random() * 20_000)).slice(0, 11)}${String(Math.floor(random() * 24)).padStart(2, "0")}:30:00Z` },
  { name: "city", type: "string", cell: () => pick(["Zürich", "Genève", "Basel", "Bern", "Lausanne", "Lugano", "Chur", "Sion"]) },
  { name: "email", type: "string", cell: (row) => `user${(row * 2654435761) % 5_000_000}@example.org` },
];

const schema: TableSchema = { fields: COLUMNS.map(({ name, type }) => ({ name, type })), missingValues: [""] };
const missing = new Set(schema.missingValues);
process.stderr.write(`bench statistics: generating ${ROWS} rows × ${COLUMNS.length} columns…\n`);
let csvBytes = 0;
const encoder = new TextEncoder();
const rows: Cell[][] = [];
for (let row = 0; row < ROWS; row++) {
  const text = COLUMNS.map((column) => column.cell(row));
  csvBytes += encoder.encode(text.join(",")).length + 1;
  rows.push(typedRow(schema, missing, text));
}
const columns = COLUMNS.map((_, i) => rows.map((cells) => cells[i]!));
const cells = ROWS * COLUMNS.length;

/** Process CPU seconds (user and system) of `run`: other work on the machine moves it far less than wall time. */
function time(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1e6;
}

function report(label: string, seconds: number[]): void {
  const best = Math.min(...seconds);
  const median = [...seconds].sort((a, b) => a - b)[Math.floor(seconds.length / 2)]!;
  const share = (median / (csvBytes / 40e6)) * 100;
  console.log(`${label}: ${((median * 1e9) / cells).toFixed(1)} ns/cell (best ${((best * 1e9) / cells).toFixed(1)}), ${(csvBytes / 1e6 / median).toFixed(0)} MB/s of CSV, ${share.toFixed(0)} % of a 40 MB/s build`);
}

const byRow: number[] = [];
const byColumn: number[] = [];
let summary = createSummaries(schema);
for (let run = 0; run < RUNS; run++) {
  byRow.push(time(() => {
    summary = createSummaries(schema);
    for (const cells of rows) observeRow(summary, cells);
  }));
  byColumn.push(time(() => observeColumns(createSummaries(schema), columns)));
}
console.log(`${ROWS} rows × ${COLUMNS.length} columns, ${(csvBytes / 1e6).toFixed(1)} MB of CSV, Node ${process.version}, CPU time`);
report("observeRow", byRow);
report("observeColumns", byColumn);
for (const [i, column] of COLUMNS.entries()) {
  const one: TableSchema = { fields: [schema.fields[i]!], missingValues: schema.missingValues };
  const runs = Array.from({ length: RUNS }, () => time(() => observeColumns(createSummaries(one), [columns[i]!])));
  const seconds = runs.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
  console.log(`  ${column.name} (${column.type}): ${((seconds * 1e9) / ROWS).toFixed(1)} ns/cell`);
}
let bytes: Uint8Array = new Uint8Array();
const encode = time(() => (bytes = encodeSummary(summary)));
let decoded = summary;
const decode = time(() => (decoded = decodeSummary(bytes)));
const merge = time(() => mergeSummaries(decoded, decodeSummary(bytes)));
const render = time(() => statisticsDocument(schema, decoded));
console.log(`summary: ${(bytes.length / 1024).toFixed(0)} KiB encoded; encode ${(encode * 1000).toFixed(0)} ms, decode ${(decode * 1000).toFixed(0)} ms, merge ${(merge * 1000).toFixed(0)} ms, render ${(render * 1000).toFixed(0)} ms`);
