// The scanner's RecordRun in WebAssembly: record-kernel.wasm (built from record-kernel.as.ts)
// takes runs of whole records and types their cells about three times as fast as the scanner
// and column typer in JavaScript, which matters most where little else is left to do: a parted
// gzip upload stored as sent (docs/performance.md). Everything it cannot take exactly as the
// scanner would, it leaves to the scanner, so behaviour has one definition (scanner.ts, held
// to the kernel by test/csv.record-kernel.test.ts).
import kernelModule from "./record-kernel.wasm";
import type { RecordRun } from "./types.ts";

/** The kernel's per-column arrays, views of its memory (record-kernel.as.ts, "Memory"). */
export interface KernelColumns {
  /** 0: not looked at; 1: inferred; 2: checked against the type bit in `wanted`. */
  mode: Uint8Array;
  wanted: Uint8Array;
  /** The inference state of src/schema/infer.ts, column by column. */
  remaining: Uint8Array;
  seen: Uint8Array;
  defaultDatetime: Uint8Array;
  trueSpellings: Int32Array;
  falseSpellings: Int32Array;
}

/** The typing side of the kernel: src/schema/column-typer.ts. */
export interface KernelTyping {
  /** Writes the columns' modes and state; false when a column needs what only the typer itself does. */
  toKernel(columns: KernelColumns): boolean;
  /** Takes the state back after the kernel typed `records` whole records. */
  fromKernel(columns: KernelColumns, records: number): void;
}

interface KernelExports {
  memory: WebAssembly.Memory;
  configure(columns: number, maxFieldBytes: number, at: number): void;
  run(from: number, end: number): number;
  records(): number;
}

const PAGE = 65_536;
const COLUMNS_AT = 64;
/** Bytes after the input that the kernel's 16-byte reads may touch. */
const SLACK = 16;

export class RecordKernel implements RecordRun {
  taken = 0;
  readonly #kernel: KernelExports;
  readonly #typing: KernelTyping | null;
  readonly #maxFieldBytes: number;
  #columnCount = -1;
  #usable = false;
  #columns: KernelColumns | null = null;
  #inputAt = 0;
  readonly #window: number;
  /** The part of the scanner's buffer copied to `#inputAt`: `[#loadedFrom, #loadedEnd)`. */
  #loadedFrom = 0;
  #loadedEnd = 0;

  /**
   * `typing`: the scanner's sink when it types cells (null: cells are not looked at).
   * `window`: most bytes copied into the kernel at a time, so its memory stays flat however
   * large the buffers the scanner is given.
   */
  constructor(typing: KernelTyping | null, maxFieldBytes: number, window = 1 << 20) {
    this.#kernel = new WebAssembly.Instance(kernelModule, {}).exports as unknown as KernelExports;
    this.#typing = typing;
    this.#maxFieldBytes = maxFieldBytes;
    this.#window = window;
  }

  take(buf: Uint8Array, from: number, end: number, columns: number, fresh: boolean): number {
    this.taken = 0;
    if (columns !== this.#columnCount) this.#configure(columns);
    if (!this.#usable) return from;
    const typing = this.#typing;
    if (typing !== null && !typing.toKernel(this.#views())) {
      this.#usable = false; // the typer's plan is settled once the header is behind
      return from;
    }
    const kernel = this.#kernel;
    // A new buffer, or little left of the window while the buffer goes on: copy from here.
    if (fresh || (this.#loadedEnd < end && this.#loadedEnd - from < this.#window / 2)) {
      const to = Math.min(end, from + this.#window);
      this.#reserve(to - from);
      new Uint8Array(kernel.memory.buffer, this.#inputAt, to - from).set(buf.subarray(from, to));
      this.#loadedFrom = from;
      this.#loadedEnd = to;
    }
    const base = this.#inputAt - this.#loadedFrom;
    const stop = kernel.run(base + from, base + this.#loadedEnd) - base;
    this.taken = kernel.records();
    if (this.taken > 0 && typing !== null) typing.fromKernel(this.#views(), this.taken);
    return stop;
  }

  #configure(columns: number): void {
    this.#columnCount = columns;
    this.#usable = columns > 0;
    this.#inputAt = Math.ceil((COLUMNS_AT + 13 * columns + 4) / 64) * 64;
    this.#reserve(0);
    this.#kernel.configure(columns, this.#maxFieldBytes, COLUMNS_AT);
    this.#columns = null;
  }

  /** Grows the kernel's memory to hold `bytes` of input. */
  #reserve(bytes: number): void {
    const memory = this.#kernel.memory;
    const need = this.#inputAt + bytes + SLACK;
    if (need > memory.buffer.byteLength) {
      memory.grow(Math.ceil((need - memory.buffer.byteLength) / PAGE));
      this.#columns = null;
    }
  }

  /** Views of the column arrays, made again when the memory grew (growing detaches the old ones). */
  #views(): KernelColumns {
    if (this.#columns !== null && this.#columns.mode.byteLength > 0) return this.#columns;
    const buffer = this.#kernel.memory.buffer;
    const n = this.#columnCount;
    const spellingsAt = (COLUMNS_AT + 5 * n + 3) & ~3;
    this.#columns = {
      mode: new Uint8Array(buffer, COLUMNS_AT, n),
      wanted: new Uint8Array(buffer, COLUMNS_AT + n, n),
      remaining: new Uint8Array(buffer, COLUMNS_AT + 2 * n, n),
      seen: new Uint8Array(buffer, COLUMNS_AT + 3 * n, n),
      defaultDatetime: new Uint8Array(buffer, COLUMNS_AT + 4 * n, n),
      trueSpellings: new Int32Array(buffer, spellingsAt, n),
      falseSpellings: new Int32Array(buffer, spellingsAt + 4 * n, n),
    };
    return this.#columns;
  }
}
