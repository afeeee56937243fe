// Encodes one part of a stitched Parquet file: the row groups of one segment's rows, with no
// absolute offset inside, so the bytes can sit anywhere in a file. Rows come in as CSV cell text;
// a row group is cut at ROW_GROUP_ROWS rows or ROW_GROUP_BYTES of cell text, whichever comes first,
// which bounds memory to about one row group. See docs/columnar.md.
import type { TableSchema } from "../../schema/table-schema.ts";
import type { TypedColumn } from "./column-chunk.ts";
import { type ColumnKind, unifyKind } from "./column-kinds.ts";
import { booleanLookup, canonicalText, cellKind } from "./field-text.ts";
import type { ChunkMeta, PartMetadata, RowGroupMeta } from "./part-metadata.ts";
import { createColumn } from "./create-column.ts";

/** Rows per row group: DuckDB's and Arrow's readers parallelise by row group, and 64Ki rows keep dictionaries useful. */
export const ROW_GROUP_ROWS = 65_536;
/** Cell text per row group: the memory a part writer holds stays near this, well inside a Worker's 128 MB. */
export const ROW_GROUP_BYTES = 8 << 20;

export type PartResult = { ok: true; metadata: PartMetadata } | { ok: false; kinds: ColumnKind[] };

export interface PartWriterOptions {
  rowGroupRows?: number;
  rowGroupBytes?: number;
}

export class PartWriter {
  private readonly schema: TableSchema;
  private readonly columns: TypedColumn[];
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

  /** A writer of `schema`'s rows as `kinds` (startKinds for a first attempt). */
  constructor(schema: TableSchema, kinds: readonly ColumnKind[], options: PartWriterOptions = {}) {
    if (kinds.length !== schema.fields.length) throw new Error("PartWriter: one kind per field");
    this.schema = schema;
    this.columns = schema.fields.map((field, i) => createColumn(kinds[i]!, field));
    this.missing = new Set(schema.missingValues);
    this.onlyEmptyMissing = this.missing.size === 1 && this.missing.has("");
    this.maxRows = options.rowGroupRows ?? ROW_GROUP_ROWS;
    this.maxBytes = options.rowGroupBytes ?? ROW_GROUP_BYTES;
  }

  /**
   * Adds one data row (cell texts, in field order). Returns false once a cell needs a wider kind
   * than the writer was given: from then on rows are only read to learn every kind the part
   * needs, and finish() reports them.
   */
  addRow(cells: readonly string[]): boolean {
    if (this.needed !== null) {
      this.scan(cells);
      return false;
    }
    const columns = this.columns;
    const n = columns.length;
    let bytes = this.groupBytes + n;
    for (let c = 0; c < n; c++) {
      const text = cells[c] ?? "";
      const column = columns[c]!;
      if (this.onlyEmptyMissing ? text === "" : this.missing.has(text)) {
        column.chunk.addNull();
        continue;
      }
      bytes += text.length;
      const need = column.add(text);
      if (need !== undefined) {
        this.needed = columns.map((col) => col.kind);
        this.needed[c] = unifyKind(column.kind, need);
        this.scan(cells);
        return false;
      }
    }
    this.rows++;
    this.groupBytes = bytes;
    if (++this.groupRows >= this.maxRows || bytes >= this.maxBytes) this.flush();
    return true;
  }

  private scan(cells: readonly string[]): void {
    const needed = this.needed!;
    this.schema.fields.forEach((field, c) => {
      const text = cells[c] ?? "";
      if (this.missing.has(text) || needed[c] === "string") return;
      const canonical = canonicalText(field);
      const plain = canonical === null ? text : canonical(text);
      needed[c] = plain === undefined ? "string" : unifyKind(needed[c]!, cellKind(needed[c]!, plain, booleanLookup(field)));
    });
  }

  private flush(): void {
    const columns: ChunkMeta[] = [];
    for (const column of this.columns) {
      const { bytes, meta } = column.chunk.finish(column.takeStatistics());
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
