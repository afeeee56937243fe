// The column statistics' own CPU time on what the Parquet build feeds them (docs/statistics.md#cost):
// one part of `npm run bench:twin`'s CSV (25 MiB, as the build cuts its 100 MiB) is encoded once
// by the part writer with recording sinks, and the calls it made are replayed into fresh
// summaries, column by column and all at once, then encoded: the encoder's own time is left out.
// BENCH_STATISTICS_BASE=<a checkout's src/columnar/statistics/> replays into that code too,
// alternated with this tree's in one process, so a change is measured against its parent on the
// same machine load. A PLAIN text's call carries its bytes (and its string only when the encoder
// had one), and the key the encoder made when it keyed the cell (`keyedUtf8`); a base without
// `keyedUtf8` is handed the same call as `utf8`, so it hashes the bytes as it did, and a base whose
// feed still takes `utf8(text, bytes, start, length)` is handed the string decoded when recorded,
// so neither side's replay pays for a string the encoder used to make. Not part of `npm run
// bench`. Run: `npx node scripts/bench-statistics-feed.ts`
// (BENCH_STATISTICS_RUNS, default 9; BENCH_STATISTICS_COLUMNS, a comma list, default all);
// with `npx node --expose-gc` it also reports the bytes a part's fed summaries hold.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { pathToFileURL } from "node:url";
import type { TableSchema } from "../src/schema/table-schema.ts";
import { writeCsvFile } from "./bench/csv-gen.ts";
import "./lib/wasm-modules.ts";

// Loaded after the hook above, so the encoder's Snappy kernel imports as it does in the worker.
const { PartWriter, startKinds } = await import("../src/columnar/parquet/index.ts");
const { CsvRecordDecoder } = await import("../src/csv/index.ts");
const { decodeSummary } = await import("../src/columnar/statistics/table-summary.ts");
const { statisticsDocument } = await import("../src/columnar/statistics/document.ts");
const { StringColumn } = await import("../src/columnar/statistics/string-column.ts");
const { KEY } = await import("../src/csv/text-key.ts");

interface Code {
  label: string;
  /** The feed takes utf8(text, bytes, start, length), the call before strings were made lazily. */
  textFirst: boolean;
  /** The feed takes keyedUtf8, a cell's key made by the encoder. */
  keyed: boolean;
  /** keyedUtf8 reads the key from KEY (this code's hash.ts) rather than taking its lanes. */
  keyInKey: boolean;
  key: Uint32Array;
  columnFeeds: (summary: never, schema: TableSchema) => Sink[];
  createSummaries: (schema: TableSchema) => never;
  encodeSummary: (summary: never) => Uint8Array;
}
interface Sink {
  nulls(count: number): void;
  number(value: number, count: number): void;
  /** Absent in a base from before runs of PLAIN numbers were told at once: replayed as number and big calls then. */
  doubles?(values: Float64Array, from: number, to: number): void;
  days?(values: Int32Array, from: number, to: number): void;
  int64s?(words: Int32Array, from: number, to: number): void;
  big(value: bigint, count: number): void;
  text(text: string, count: number): void;
  utf8(bytes: Uint8Array, start: number, length: number, text?: string): void;
  keyedUtf8(bytes: Uint8Array, start: number, length: number, ...rest: number[]): void;
  booleans(trues: number, falses: number): void;
  zoned(): void;
  /** Absent in a base from before the sink was told of page cuts. */
  pageDone?(): void;
}

async function load(label: string, dir: URL): Promise<Code> {
  const feed = await import(new URL("column-feed.ts", dir).href);
  const summaries = await import(new URL("table-summary.ts", dir).href);
  const source = readFileSync(new URL("column-feed.ts", dir), "utf8");
  const textFirst = source.includes("utf8(text: string");
  const keyed = source.includes("keyedUtf8(");
  const keyInKey = source.includes("keyedUtf8(bytes: Uint8Array, start: number, length: number, points: number");
  const { KEY } = await import(new URL("hash.ts", dir).href);
  return { label, textFirst, keyed, keyInKey, key: KEY, columnFeeds: feed.columnFeeds, createSummaries: summaries.createSummaries, encodeSummary: summaries.encodeSummary };
}

const utf8Text = new TextDecoder();
const RUNS = Number(process.env.BENCH_STATISTICS_RUNS ?? 9);
const codes = [await load("this tree", new URL("../src/columnar/statistics/", import.meta.url))];
const base = process.env.BENCH_STATISTICS_BASE;
if (base) codes.unshift(await load("base", pathToFileURL(base.endsWith("/") ? base : `${base}/`)));

const csvPath = join(tmpdir(), "pubset-bench-statistics-part.csv");
if (!existsSync(csvPath)) writeCsvFile(csvPath, 25 * 1024 * 1024, 31);
const decoder = new CsvRecordDecoder();
const records = [...decoder.push(readFileSync(csvPath, "utf8")), ...decoder.finish()];
const header = records.shift()!;
const TYPES: Record<string, "integer" | "number" | "date" | "datetime"> = { id: "integer", amount: "number", quantity: "integer", ordered_at: "datetime", shipped_on: "date" };
const schema: TableSchema = { fields: header.map((name) => ({ name, type: TYPES[name] ?? "string" })), missingValues: [""] };

/**
 * One column's calls, in order, in typed arrays (an op code and two numbers each; texts, big
 * integers and utf8's bytes beside them), so the recording adds few objects to the heap whose
 * collections the replays would otherwise pay for.
 */
class Recording implements Sink {
  size = 0;
  codes = new Uint8Array(1024);
  a = new Float64Array(1024);
  b = new Float64Array(1024);
  texts: string[] = [];
  bigs: bigint[] = [];
  bytes = new Uint8Array(1 << 20);
  used = 0;
  private op(code: number, a: number, b: number): void {
    if (this.size === this.codes.length) {
      const codes = new Uint8Array(this.size * 2);
      const as = new Float64Array(this.size * 2);
      const bs = new Float64Array(this.size * 2);
      codes.set(this.codes);
      as.set(this.a);
      bs.set(this.b);
      [this.codes, this.a, this.b] = [codes, as, bs];
    }
    this.codes[this.size] = code;
    this.a[this.size] = a;
    this.b[this.size++] = b;
  }
  nulls(count: number): void { this.op(0, count, 0); }
  number(value: number, count: number): void { this.op(1, value, count); }
  big(value: bigint, count: number): void { this.op(2, this.bigs.push(value) - 1, count); }
  text(text: string, count: number): void { this.op(3, this.texts.push(text) - 1, count); }
  /** Whether each utf8 call came with its string (by call, in order); `texts` holds every call's string. */
  given: boolean[] = [];
  utf8(bytes: Uint8Array, start: number, length: number, text?: string): void {
    if (this.used + length > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.used + length));
      grown.set(this.bytes);
      this.bytes = grown;
    }
    this.bytes.set(bytes.subarray(start, start + length), this.used);
    this.texts.push(text ?? utf8Text.decode(bytes.subarray(start, start + length)));
    this.given.push(text !== undefined);
    this.op(4, this.used, length);
    this.used += length;
  }
  /** keyedUtf8's keys, code points and UTF-16 units, four numbers a call, in order. */
  keys = new Float64Array(1024);
  keyCount = 0;
  keyedUtf8(bytes: Uint8Array, start: number, length: number, points: number, units: number): void {
    const high = KEY[0]!;
    const low = KEY[1]!;
    this.utf8(bytes, start, length);
    this.codes[this.size - 1] = 7;
    if (this.keyCount + 4 > this.keys.length) {
      const grown = new Float64Array(this.keys.length * 2);
      grown.set(this.keys);
      this.keys = grown;
    }
    this.keys.set([high, low, points, units], this.keyCount);
    this.keyCount += 4;
  }
  /** The values of doubles, days and int64s calls, in order (an int64 as its two words); each call an op naming its range there. */
  doubleValues = new Float64Array(1024);
  doubleCount = 0;
  dayValues = new Int32Array(1024);
  dayCount = 0;
  int64Words = new Int32Array(2048);
  int64Count = 0;
  doubles(values: Float64Array, from: number, to: number): void {
    if (this.doubleCount + to - from > this.doubleValues.length) this.doubleValues = grownTo(this.doubleValues, this.doubleCount + to - from);
    this.doubleValues.set(values.subarray(from, to), this.doubleCount);
    this.op(9, this.doubleCount, to - from);
    this.doubleCount += to - from;
  }
  days(values: Int32Array, from: number, to: number): void {
    if (this.dayCount + to - from > this.dayValues.length) this.dayValues = grownTo(this.dayValues, this.dayCount + to - from);
    this.dayValues.set(values.subarray(from, to), this.dayCount);
    this.op(10, this.dayCount, to - from);
    this.dayCount += to - from;
  }
  int64s(words: Int32Array, from: number, to: number): void {
    if (2 * (this.int64Count + to - from) > this.int64Words.length) this.int64Words = grownTo(this.int64Words, 2 * (this.int64Count + to - from));
    this.int64Words.set(words.subarray(2 * from, 2 * to), 2 * this.int64Count);
    this.op(11, this.int64Count, to - from);
    this.int64Count += to - from;
  }
  booleans(trues: number, falses: number): void { this.op(5, trues, falses); }
  /** Replayed where it came, though nothing writes over the recording's bytes: the sink copies what it kept then. */
  pageDone(): void { this.op(8, 0, 0); }
  zoned(): void { this.op(6, 0, 0); }
}

function grownTo<T extends Float64Array | Int32Array>(array: T, needed: number): T {
  const grown = new (array.constructor as new (length: number) => T)(Math.max(needed, 2 * array.length));
  grown.set(array);
  return grown;
}

const recordings = header.map(() => new Recording());
const writer = new PartWriter(schema, startKinds(schema), { sinks: recordings });
for (let at = 0; at < records.length; at += 10_000) {
  writer.addRows(records.slice(at, at + 10_000));
  writer.takeBytes();
}
if (!writer.finish().ok) throw new Error("bench statistics feed: the part's kinds widened");
const rows = records.length;
// The rows go: only the recorded calls (and the texts they hold) stay on the heap.
records.length = 0;

/** Replays the recorded calls of column `only` (every column when −1) into `feeds`, made by `code`. */
function replayInto(code: Code, feeds: Sink[], only: number): void {
  for (let c = 0; c < recordings.length; c++) {
    if (only >= 0 && c !== only) continue;
    const feed = feeds[c]!;
    const { size, codes, a, b, texts, bigs, bytes, given, keys, doubleValues, dayValues, int64Words } = recordings[c]!;
    const old = feed as unknown as { utf8(text: string, bytes: Uint8Array, start: number, length: number): void };
    let text = 0;
    let call = 0;
    let key = 0;
    for (let i = 0; i < size; i++) {
      switch (codes[i]) {
        case 0: feed.nulls(a[i]!); break;
        case 1: feed.number(a[i]!, b[i]!); break;
        case 2: feed.big(bigs[a[i]!]!, b[i]!); break;
        case 3: feed.text(texts[text++]!, b[i]!); break;
        case 7:
          if (code.keyInKey) {
            code.key[0] = keys[key]!;
            code.key[1] = keys[key + 1]!;
            feed.keyedUtf8(bytes, a[i]!, b[i]!, keys[key + 2]!, keys[key + 3]!);
            key += 4;
            text++;
            call++;
            break;
          }
          if (code.keyed) {
            feed.keyedUtf8(bytes, a[i]!, b[i]!, keys[key]!, keys[key + 1]!, keys[key + 2]!, keys[key + 3]!);
            key += 4;
            text++;
            call++;
            break;
          }
          key += 4;
        // falls through: a base without keyedUtf8 hashes the bytes
        case 4:
          if (code.textFirst) old.utf8(texts[text]!, bytes, a[i]!, b[i]!);
          else feed.utf8(bytes, a[i]!, b[i]!, given[call] ? texts[text] : undefined);
          text++;
          call++;
          break;
        case 5: feed.booleans(a[i]!, b[i]!); break;
        case 6: feed.zoned(); break;
        case 8: feed.pageDone?.(); break;
        case 9:
          if (feed.doubles) feed.doubles(doubleValues, a[i]!, a[i]! + b[i]!);
          else for (let v = a[i]!; v < a[i]! + b[i]!; v++) feed.number(doubleValues[v]!, 1);
          break;
        case 10:
          if (feed.days) feed.days(dayValues, a[i]!, a[i]! + b[i]!);
          else for (let v = a[i]!; v < a[i]! + b[i]!; v++) feed.number(dayValues[v]!, 1);
          break;
        case 11:
          if (feed.int64s) feed.int64s(int64Words, a[i]!, a[i]! + b[i]!);
          else {
            // As the encoder told them before: each value, a BigInt past ±2^53.
            for (let v = a[i]!; v < a[i]! + b[i]!; v++) {
              const low = int64Words[2 * v]! >>> 0;
              const high = int64Words[2 * v + 1]!;
              if (high >= -(1 << 21) && high < 1 << 21) feed.number(high * 4294967296 + low, 1);
              else feed.big((BigInt(high) << 32n) + BigInt(low), 1);
            }
          }
          break;
      }
    }
  }
}

/** Process CPU seconds of replaying the part's calls for `only` (every column when −1) and encoding the summary. */
function replay(code: Code, only: number): { seconds: number; bytes: Uint8Array } {
  const start = process.cpuUsage();
  const summary = code.createSummaries(schema);
  const feeds = code.columnFeeds(summary, schema);
  replayInto(code, feeds, only);
  const encoded = code.encodeSummary(summary);
  const { user, system } = process.cpuUsage(start);
  return { seconds: (user + system) / 1e6, bytes: encoded };
}

/**
 * Bytes a part's fed summaries hold once every call is replayed (before they are encoded): heap
 * and array buffers after a forced collection, against the same before they were made. Needs
 * `--expose-gc`; null without it.
 */
function held(code: Code): number | null {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return null;
  const used = () => {
    gc();
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    return heapUsed + arrayBuffers;
  };
  const before = used();
  const summary = code.createSummaries(schema);
  const feeds = code.columnFeeds(summary, schema);
  replayInto(code, feeds, -1);
  const after = used();
  // Kept alive until measured.
  if (feeds.length !== recordings.length) throw new Error("unreachable");
  return after - before;
}

/**
 * What a stored summary says, read by this tree whatever the order its parts were stored in: its
 * document, and every frequent-value counter of its string columns (by count, then text).
 */
function readAs(bytes: Uint8Array): string {
  const summary = decodeSummary(bytes);
  const counters = summary.columns.map((column) => (column instanceof StringColumn ? column.frequent.top(Number.MAX_SAFE_INTEGER) : null));
  return JSON.stringify([statisticsDocument(schema, summary), counters]);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const columns = process.env.BENCH_STATISTICS_COLUMNS?.split(",") ?? ["every column", ...header];
console.log(`${rows} rows of a 25 MiB part, Node ${process.version}, process CPU time, median (best) of ${RUNS}, alternated`);
for (const name of columns) {
  const only = name === "every column" ? -1 : header.indexOf(name);
  if (name !== "every column" && only < 0) throw new Error(`bench statistics feed: no column ${name}`);
  const times = codes.map(() => [] as number[]);
  const summaries: Uint8Array[] = codes.map(() => new Uint8Array(0));
  for (let run = 0; run < RUNS; run++) {
    codes.forEach((code, i) => {
      const { seconds, bytes } = replay(code, only);
      times[i]!.push(seconds);
      summaries[i] = bytes;
    });
  }
  const cells = codes.map((code, i) => `${code.label} ${(median(times[i]!) * 1000).toFixed(1)} ms (${(Math.min(...times[i]!) * 1000).toFixed(1)}), ${summaries[i]!.length} B`);
  // With a base, whether both wrote the same summary, byte for byte or read back.
  const same = codes.length > 1 ? (summaries.every((bytes) => Buffer.from(bytes).equals(Buffer.from(summaries[0]!))) ? " | same bytes" : summaries.every((bytes) => readAs(bytes) === readAs(summaries[0]!)) ? " | same summary, stored in another order" : " | SUMMARIES DIFFER") : "";
  console.log(`${name.padEnd(13)} ${cells.join(" | ")}${same}`);
}
for (const code of codes) {
  const bytes = held(code);
  if (bytes !== null) console.log(`held by a part's fed summaries, ${code.label}: ${(bytes / 1024 / 1024).toFixed(2)} MiB (heap and array buffers after a forced collection)`);
}
