// Encodes one part of a stitched Parquet file: the row groups of one segment's rows, with no
// absolute offset inside, so the bytes can sit anywhere in a file. Rows come in as batches of
// cells, byte ranges of their UTF-8 (src/csv/cell-batch.ts);
// a row group is cut at ROW_GROUP_ROWS rows or ROW_GROUP_BYTES of cell text, whichever comes first,
// which bounds memory to about one row group. See docs/columnar.md.
import { CellBatch } from "../../csv/cell-batch.ts";
import type { TableSchema } from "../../schema/table-schema.ts";
import type { TypedColumn } from "./column-chunk.ts";
import { type ColumnKind, unifyKind } from "./column-kinds.ts";
import { booleanLookup, type Canonical, canonicalText, cellKind } from "./field-text.ts";
import type { ChunkMeta, PartMetadata, RowGroupMeta } from "./part-metadata.ts";
import { createColumn } from "./create-column.ts";
import type { ValueSink } from "./value-sink.ts";

/** Rows per row group: DuckDB's and Arrow's readers parallelise by row group, and 64Ki rows keep dictionaries useful. */
export const ROW_GROUP_ROWS = 65_536;
/** Cell text per row group: the memory a part writer holds stays near this, well inside a Worker's 128 MB. */
export const ROW_GROUP_BYTES = 8 << 20;
/** Rows added column by column at a time: the row group's bounds are checked between batches. */
const BATCH_ROWS = 1024;

export type PartResult = { ok: true; metadata: PartMetadata } | { ok: false; kinds: ColumnKind[] };

export interface PartWriterOptions {
  rowGroupRows?: number;
  rowGroupBytes?: number;
  /** Rows per page at most (PAGE_ROWS by default; tests make pages small). */
  pageRows?: number;
  /** Values' PLAIN bytes per page, about (PAGE_BYTES by default; tests write the bounds of older twins). */
  pageBytes?: number;
  /** One per field: told every value the writer writes, and the missing cells (value-sink.ts). */
  sinks?: readonly ValueSink[];
}

export class PartWriter {
  private readonly schema: TableSchema;
  private readonly columns: TypedColumn[];
  private readonly sinks: readonly ValueSink[] | null;
  private readonly missing: ReadonlySet<string>;
  private readonly onlyEmptyMissing: boolean;
  private readonly maxRows: number;
  private readonly maxBytes: number;
  private ready: Uint8Array[] = [];
  private readonly rowGroups: RowGroupMeta[] = [];
  private offset = 0;
  private rows = 0;
  private groupRows = 0;
  private groupBytes = 0;
  private needed: ColumnKind[] | null = null;
  /** How scan() reads each field's cells, made on its first use. */
  private readers: { canonical: Canonical | null; isBoolean: (text: string) => boolean | undefined }[] | null = null;

  /** A writer of `schema`'s rows as `kinds` (startKinds for a first attempt). */
  constructor(schema: TableSchema, kinds: readonly ColumnKind[], options: PartWriterOptions = {}) {
    if (kinds.length !== schema.fields.length) throw new Error("PartWriter: one kind per field");
    this.schema = schema;
    if (options.sinks !== undefined && options.sinks.length !== schema.fields.length) throw new Error("PartWriter: one sink per field");
    this.sinks = options.sinks ?? null;
    this.columns = schema.fields.map((field, i) => createColumn(kinds[i]!, field, this.sinks?.[i] ?? null));
    if (options.pageRows !== undefined) for (const column of this.columns) column.chunk.pageRows = options.pageRows;
    if (options.pageBytes !== undefined) for (const column of this.columns) column.chunk.pageBytes = options.pageBytes;
    this.missing = new Set(schema.missingValues);
    this.onlyEmptyMissing = this.missing.size === 1 && this.missing.has("");
    this.maxRows = options.rowGroupRows ?? ROW_GROUP_ROWS;
    this.maxBytes = options.rowGroupBytes ?? ROW_GROUP_BYTES;
  }

  /** Adds one data row (cell texts, in field order); as addRows. */
  addRow(cells: readonly string[]): boolean {
    return this.addRows([cells]);
  }

  /** Adds data rows (cell texts, in field order), as their UTF-8 bytes; as addBatch. */
  addRows(rows: readonly (readonly string[])[]): boolean {
    return this.addBatch(CellBatch.fromRows(rows));
  }

  /**
   * Adds the batch's records (cells in field order), column by column. Returns false once a cell
   * needs a wider kind than the writer was given: from then on rows are only read to learn every
   * kind the part needs, and finish() reports them.
   */
  addBatch(batch: CellBatch): boolean {
    const columns = this.columns;
    const n = columns.length;
    const records = batch.records;
    const missing = this.onlyEmptyMissing ? null : this.missing;
    let from = 0;
    while (from < records && this.needed === null) {
      const to = Math.min(records, from + BATCH_ROWS, from + this.maxRows - this.groupRows);
      let bytes = (to - from) * n;
      for (let c = 0; c < n; c++) {
        const column = columns[c]!;
        const added = column.addCells(batch, c, from, to, missing);
        if (added < 0) {
          this.needed = columns.map((col) => col.kind);
          this.needed[c] = unifyKind(column.kind, column.need!);
          break;
        }
        bytes += added;
      }
      if (this.needed !== null) break;
      this.rows += to - from;
      this.groupRows += to - from;
      this.groupBytes += bytes;
      if (this.groupRows >= this.maxRows || this.groupBytes >= this.maxBytes) this.flush();
      from = to;
    }
    if (this.needed === null) return true;
    for (let r = from; r < records; r++) this.scan(batch, r);
    return false;
  }

  private scan(batch: CellBatch, r: number): void {
    const needed = this.needed!;
    this.readers ??= this.schema.fields.map((field) => ({ canonical: canonicalText(field), isBoolean: booleanLookup(field) }));
    for (let c = 0; c < needed.length; c++) {
      const text = batch.cellOf(r, c);
      if (this.missing.has(text) || needed[c] === "string") continue;
      const { canonical, isBoolean } = this.readers[c]!;
      const plain = canonical === null ? text : canonical(text);
      needed[c] = plain === undefined ? "string" : unifyKind(needed[c]!, cellKind(needed[c]!, plain, isBoolean));
    }
  }

  private flush(): void {
    const columns: ChunkMeta[] = [];
    for (const [i, column] of this.columns.entries()) {
      const { bytes, meta } = column.chunk.finish(() => column.takeStatistics());
      meta.instantDigits = column.takeDigits();
      this.sinks?.[i]!.nulls(meta.nulls);
      meta.offset = this.offset;
      this.offset += meta.compressed;
      for (const piece of bytes) this.ready.push(piece);
      columns.push(meta);
    }
    this.rowGroups.push({ rows: this.groupRows, columns });
    this.groupRows = 0;
    this.groupBytes = 0;
  }

  /** The part's bytes completed since the last call, in order (whole row groups). */
  takeBytes(): Uint8Array[] {
    const out = this.ready;
    this.ready = [];
    return out;
  }

  /** Ends the part: its metadata (then takeBytes() gives the last bytes), or the kinds to encode it again with. */
  finish(): PartResult {
    if (this.needed !== null) return { ok: false, kinds: this.needed };
    if (this.groupRows > 0) this.flush();
    return { ok: true, metadata: { kinds: this.columns.map((c) => c.kind), rows: this.rows, byteLength: this.offset, rowGroups: this.rowGroups } };
  }
}
