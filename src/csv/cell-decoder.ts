// Streaming decoder of CSV bytes into batches of cells (cell-batch.ts), by cell-kernel.wasm
// (built from cell-kernel.as.ts): the Parquet build's reading of stored segments, with no string
// per cell. It reads text as CsvRecordDecoder (records.ts) does and throws the same errors; a
// record cut by the end of a chunk is carried to the next, bytes and all.
import { CellBatch } from "./cell-batch.ts";
import kernelModule from "./cell-kernel.wasm";
import { invalidCsv } from "./csv-error.ts";

interface KernelExports {
  memory: WebAssembly.Memory;
  configure(cells: number, records: number, capacity: number): void;
  reset(): void;
  run(from: number, end: number, last: number): number;
  cells(): number;
  records(): number;
  stopped(): number;
  errorRecord(): number;
  finish(): void;
}

const PAGE = 65_536;
const CELLS_AT = 64;
/** Cells a batch holds at most, at first: 20 bytes each with the records', 640 KiB (grown for a longer record). */
export const CELL_CAPACITY = 32_768;
/** Bytes after the input that the kernel's 16-byte reads may touch. */
const SLACK = 16;

/** cell-kernel.as.ts `stopped()`. */
const FULL = 1;
const LONE_CR = 2;
const AFTER_QUOTE = 3;
const UNBALANCED = 4;
const INVALID_UTF8 = 5;

export class CellDecoder {
  readonly #kernel: KernelExports;
  readonly #text = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  #capacity = 0;
  #inputAt = 0;
  /** The input not yet taken: [#from, #end), relative to #inputAt. */
  #from = 0;
  #end = 0;
  #last = false;
  #started: boolean;

  /**
   * `midFile`: the bytes start at a record boundary inside a file, so a leading BOM is data.
   * `cells`: the cells a batch holds at first (tests make it small).
   */
  constructor(options: { midFile?: boolean; cells?: number } = {}) {
    this.#kernel = new WebAssembly.Instance(kernelModule, {}).exports as unknown as KernelExports;
    this.#started = options.midFile === true;
    this.#layout(options.cells ?? CELL_CAPACITY);
    this.#kernel.reset();
  }

  #layout(capacity: number): void {
    const carried = this.#end - this.#from;
    const old = this.#inputAt + this.#from;
    this.#capacity = capacity;
    const inputAt = CELLS_AT + 20 * capacity;
    this.#reserve(inputAt + carried);
    const memory = new Uint8Array(this.#kernel.memory.buffer);
    if (carried > 0) memory.copyWithin(inputAt, old, old + carried);
    this.#inputAt = inputAt;
    this.#from = 0;
    this.#end = carried;
    this.#kernel.configure(CELLS_AT, CELLS_AT + 16 * capacity, capacity);
  }

  #reserve(bytes: number): void {
    const memory = this.#kernel.memory;
    const need = bytes + SLACK;
    if (need > memory.buffer.byteLength) memory.grow(Math.ceil((need - memory.buffer.byteLength) / PAGE));
  }

  /** Adds `chunk` after what is not taken yet; then take() the batches it completes. */
  push(chunk: Uint8Array): void {
    if (this.#last) throw new Error("CellDecoder: push after finish");
    let bytes = chunk;
    if (!this.#started && bytes.length > 0) {
      // A file's leading BOM is not data; it can be cut by the chunks only in a file's first bytes.
      const held = new Uint8Array(this.#kernel.memory.buffer, this.#inputAt + this.#from, this.#end - this.#from);
      const head = new Uint8Array(held.length + bytes.length);
      head.set(held);
      head.set(bytes, held.length);
      if (head.length < 3 && [0xef, 0xbb, 0xbf].slice(0, head.length).every((b, i) => head[i] === b)) {
        this.#end = this.#from;
        this.#append(head);
        return;
      }
      this.#started = true;
      this.#end = this.#from;
      bytes = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? head.subarray(3) : head;
    }
    this.#append(bytes);
  }

  #append(bytes: Uint8Array): void {
    const carried = this.#end - this.#from;
    this.#reserve(this.#inputAt + carried + bytes.length);
    const memory = new Uint8Array(this.#kernel.memory.buffer);
    if (this.#from > 0 && carried > 0) memory.copyWithin(this.#inputAt, this.#inputAt + this.#from, this.#inputAt + this.#end);
    memory.set(bytes, this.#inputAt + carried);
    this.#from = 0;
    this.#end = carried + bytes.length;
  }

  /** The text ends: take() then gives its last records; trailing blank lines are dropped. */
  finish(): void {
    this.#last = true;
  }

  /** The next batch of whole records pushed so far, or null when none is left (until the next push). */
  take(): CellBatch | null {
    const kernel = this.#kernel;
    for (;;) {
      const from = this.#inputAt + this.#from;
      const end = this.#inputAt + this.#end;
      if (from === end) {
        if (this.#last) kernel.finish();
        return null;
      }
      const taken = kernel.run(from, end, this.#last ? 1 : 0);
      const status = kernel.stopped();
      if (status > FULL) this.#fail(status);
      this.#from = taken - this.#inputAt;
      const records = kernel.records();
      if (records > 0) return this.#batch(from, taken, records);
      if (status === FULL) {
        this.#layout(this.#capacity * 2);
        continue;
      }
      if (this.#last && this.#from === this.#end) kernel.finish();
      return null;
    }
  }

  #batch(from: number, taken: number, records: number): CellBatch {
    const buffer = this.#kernel.memory.buffer;
    const bytes = new Uint8Array(buffer);
    const cells = new Int32Array(buffer, CELLS_AT, 4 * this.#kernel.cells());
    const ends = new Int32Array(buffer, CELLS_AT + 16 * this.#capacity, records);
    return new CellBatch(bytes, cells, ends, records, () => this.#text.decode(bytes.subarray(from, taken)));
  }

  #fail(status: number): never {
    const record = this.#kernel.errorRecord();
    switch (status) {
      case LONE_CR:
        throw invalidCsv("a CR not followed by LF", record);
      case AFTER_QUOTE:
        throw invalidCsv("unbalanced quotes: characters after a closing quote", record);
      case UNBALANCED:
        throw invalidCsv("unbalanced quotes: end of input inside a quoted field", record);
      case INVALID_UTF8:
        throw new TypeError("The encoded data was not valid for encoding utf-8");
      default:
        throw new Error(`cell kernel: status ${status}`);
    }
  }
}
