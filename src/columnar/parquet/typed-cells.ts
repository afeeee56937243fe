// The typed columns' cells read by typed-kernel.wasm (built from typed-kernel.as.ts): a batch's
// records are staged in the kernel's memory once, each integer, double, date, time or datetime
// column is parsed there in one pass, and its values reach the chunk as PLAIN runs up to each page
// cut (ColumnChunk.appendRun), or one by one while the chunk tries a dictionary. A cell the kernel
// leaves to cell-values.ts is read by byte-cells.ts's loop, which then decides, as it always did.
import type { CellBatch } from "../../csv/cell-batch.ts";
import { addCellsByBytes, type ByteReadColumn } from "./byte-cells.ts";
import typedModule from "./typed-kernel.wasm";

interface TypedKernel {
  memory: WebAssembly.Memory;
  /** Where staged records may begin: after the bounds and the calendar's tables. */
  STAGE_AT: WebAssembly.Global;
  configure(ends: number, cells: number, levels: number, values: number, keys: number): void;
  parse(kind: number, c: number, from: number, to: number, kBase: number, shift: number, zone: number, digits: number): number;
  units(): number;
  count(): number;
  zone(): number;
  digits(): number;
  bounds(kind: number, from: number, to: number): number;
  keys(kind: number, from: number, to: number, int: boolean): number;
}

/** typed-kernel.as.ts's kinds. */
export const KERNEL_INT64 = 0;
export const KERNEL_DOUBLE = 1;
export const KERNEL_DATE = 2;
export const KERNEL_TIME = 3;
export const KERNEL_TIMESTAMP = 4;
/** A timestamp column's zone for the kernel: not known yet, local, UTC. */
export const ZONE_UNKNOWN = -1;
export const ZONE_LOCAL = 0;
export const ZONE_UTC = 1;

const PAGE = 65_536;

/** A typed column whose cells the kernel reads (int64-column.ts, numeric-columns.ts). */
export interface KernelColumn extends ByteReadColumn {
  /** The kernel's kind, a timestamp column's zone so far (ZONE_*) and a time or timestamp column's fraction digits so far. */
  kernelKind(): number;
  kernelZone(): number;
  kernelDigits(): number;
  /** The zone and digits after a parse: the column takes them as its own. */
  parsed(zone: number, digits: number): void;
  /** Value `v` of the last parse written through the chunk's dictionary (the chunk has one). */
  putValue(v: number): void;
  /** Values [from, to) of the last parse, about to be written PLAIN: their bounds and sink. */
  noteValues(from: number, to: number): void;
}

/** One instance per isolate, made on first use; its memory grows to the largest staged range and stays. */
let kernel: TypedKernel | null = null;
/** The kernel's memory as bytes, i32 and f64, remade when it grows. */
export const views = { bytes: new Uint8Array(0), i32: new Int32Array(0), f64: new Float64Array(0), levelsAt: 0, valuesAt: 0, keysAt: 0 };

/** What is staged: records [from, to) of `batch` while its `ends` is `ends` (dropFirst makes a new one). */
let stagedBatch: CellBatch | null = null;
let stagedEnds: Int32Array | null = null;
let stagedFrom = 0;
let stagedTo = 0;
let kBase = 0;
let shift = 0;

function stage(batch: CellBatch, from: number, to: number): TypedKernel {
  const k = (kernel ??= new WebAssembly.Instance(typedModule, {}).exports as unknown as TypedKernel);
  if (batch === stagedBatch && batch.ends === stagedEnds && from === stagedFrom && to === stagedTo) return k;
  const { cells, ends } = batch;
  const first = from === 0 ? batch.first : ends[from - 1]!;
  const last = ends[to - 1]!;
  const lo = last > first ? cells[4 * first]! & 0x7fffffff : 0;
  const hi = last > first ? cells[4 * (last - 1) + 1]! : 0;
  const records = to - from;
  const endsAt = k.STAGE_AT.value as number;
  const cellsAt = endsAt + ((4 * records + 15) & ~15);
  const bytesAt = cellsAt + 16 * (last - first);
  const levelsAt = bytesAt + ((hi - lo + 16) & ~15);
  const valuesAt = levelsAt + ((records + 15) & ~15);
  const keysAt = valuesAt + 8 * records;
  const need = keysAt + 8 * records;
  const have = k.memory.buffer.byteLength;
  if (need > have) k.memory.grow(Math.ceil((need - have) / PAGE));
  if (views.bytes.buffer !== k.memory.buffer) {
    views.bytes = new Uint8Array(k.memory.buffer);
    views.i32 = new Int32Array(k.memory.buffer);
    views.f64 = new Float64Array(k.memory.buffer);
  }
  views.i32.set(ends.subarray(from, to), endsAt >> 2);
  views.i32.set(cells.subarray(4 * first, 4 * last), cellsAt >> 2);
  views.bytes.set(batch.bytes.subarray(lo, hi), bytesAt);
  views.levelsAt = levelsAt;
  views.valuesAt = valuesAt;
  views.keysAt = keysAt;
  k.configure(endsAt, cellsAt, levelsAt, valuesAt, keysAt);
  stagedBatch = batch;
  stagedEnds = ends;
  stagedFrom = from;
  stagedTo = to;
  kBase = first;
  shift = bytesAt - lo;
  return k;
}

/** Min and max of values [from, to) of the last parse, at views' index 0 and 1 (f64), 0–1 and 2–3 (i64 halves) or 0 and 2 (i32); false when none counts. */
export function kernelBounds(kind: number, from: number, to: number): boolean {
  return kernel!.bounds(kind, from, to) !== 0;
}

/**
 * Cells `c` of records [from, to) of `batch` into `column`, as TypedColumn.addCells says, for a
 * column whose cells need no castCell and whose only missing value is the empty cell.
 */
export function addCellsByKernel(column: KernelColumn, batch: CellBatch, c: number, from: number, to: number): number {
  if (to <= from) return 0;
  const k = stage(batch, from, to);
  const n = to - from;
  const kind = column.kernelKind();
  const size = kind === KERNEL_DATE ? 4 : 8;
  let units = 0;
  for (let r = 0; r < n; ) {
    const stop = k.parse(kind, c, r, n, kBase, shift, column.kernelZone(), column.kernelDigits());
    column.parsed(k.zone(), k.digits());
    units += k.units();
    feed(k, column, kind, r, stop, k.count());
    if (stop === n) break;
    const one = addCellsByBytes(column, true, batch, c, from + stop, from + stop + 1, null);
    if (one < 0) return -1;
    units += one;
    r = stop + 1;
  }
  return units;
}

/**
 * Rows [from, to) of the last parse (its levels and `count` values) into the column's chunk: PLAIN
 * runs while the chunk has no dictionary; with one, the values the dictionary holds as runs of
 * their keys (ColumnChunk.dictRun) and each other value through the column, as a new entry.
 */
function feed(k: TypedKernel, column: KernelColumn, kind: number, from: number, to: number, count: number): void {
  const chunk = column.chunk;
  const size = kind === KERNEL_DATE ? 4 : 8;
  const levels = views.bytes;
  const at = views.levelsAt;
  /** Values [v, keyEnd) have their keys written, as i32 (read unboxed) while `intKeys`, else f64. */
  let keyEnd = 0;
  let intKeys = true;
  let v = 0;
  for (let r = from; r < to; ) {
    let end: number;
    if (chunk.dict === null) {
      end = chunk.runEnd(levels, at + r, at + to, size) - at;
      let values = 0;
      for (let i = at + r; i < at + end; i++) values += levels[i]!;
      if (values > 0) column.noteValues(v, v + values);
      chunk.appendRun(levels, at + r, at + end, views.bytes, views.valuesAt + v * size, values, size);
      v += values;
    } else {
      if (keyEnd <= v) {
        keyEnd = k.keys(kind, v, count, (intKeys = true));
        if (keyEnd === v) keyEnd = k.keys(kind, v, count, (intKeys = false));
      }
      end = intKeys
        ? chunk.dictRun(levels, at + r, at + to, views.i32, (views.keysAt >> 2) + 2 * v, (views.keysAt >> 2) + 2 * keyEnd, 2, size) - at
        : chunk.dictRun(levels, at + r, at + to, views.f64, (views.keysAt >> 3) + v, (views.keysAt >> 3) + keyEnd, 1, size) - at;
      for (let i = at + r; i < at + end; i++) v += levels[i]!;
      // Stopped at a value the dictionary does not hold, or whose key is no number: it goes through the column.
      if (end < to && chunk.dict !== null && levels[at + end] === 1) {
        column.putValue(v++);
        end++;
      }
    }
    r = end;
  }
}
