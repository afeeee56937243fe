// The BOOLEAN and text column chunks. Booleans are bit-packed PLAIN values; text is UTF-8, its
// min/max in byte order (code point order), cut as text-statistics.ts says.
import { castCell } from "../../schema/cast.ts";
import type { Field } from "../../schema/table-schema.ts";
import { compareText } from "./cell-values.ts";
import { ColumnChunk, type TypedColumn } from "./column-chunk.ts";
import type { ColumnKind } from "./column-kinds.ts";
import { booleanLookup } from "./field-text.ts";
import { textStatistics } from "./text-statistics.ts";
import type { ValueSink } from "./value-sink.ts";

const NOTHING_MISSING: ReadonlySet<string> = new Set();

/** BOOLEAN: PLAIN booleans are bit-packed, least significant bit first; no dictionary. */
export class BooleanColumn implements TypedColumn {
  readonly kind: ColumnKind = "boolean";
  readonly chunk = new ColumnChunk(false, true);
  need: ColumnKind | undefined = undefined;
  private trues = 0;
  private falses = 0;
  private readonly lookup: (text: string) => boolean | undefined;
  private readonly sink: ValueSink | null;

  constructor(field: Field, sink: ValueSink | null = null) {
    this.lookup = booleanLookup(field);
    this.sink = sink;
  }

  /** Cells `c` of rows[from, to); as TypedColumn says. A copy per class, so its call to add() stays monomorphic. */
  addCells(rows: readonly (readonly string[])[], c: number, from: number, to: number, missing: ReadonlySet<string> | null): number {
    const chunk = this.chunk;
    let bytes = 0;
    for (let r = from; r < to; r++) {
      const text = rows[r]![c] ?? "";
      if (missing === null ? text === "" : missing.has(text)) {
        chunk.addNull();
        continue;
      }
      bytes += text.length;
      const need = this.add(text);
      if (need !== undefined) {
        this.need = need;
        return -1;
      }
    }
    return bytes;
  }

  add(text: string): ColumnKind | undefined {
    const value = this.lookup(text);
    if (value === undefined) return "string";
    this.chunk.slot(0)!.u8(value ? 1 : 0);
    if (value) this.trues++;
    else this.falses++;
    this.chunk.placed(1);
    return undefined;
  }

  private statistics(): { min: Uint8Array; max: Uint8Array } | null {
    if (this.trues === 0 && this.falses === 0) return null;
    return { min: Uint8Array.of(this.falses > 0 ? 0 : 1), max: Uint8Array.of(this.trues > 0 ? 1 : 0) };
  }

  takeStatistics(): { min: Uint8Array; max: Uint8Array } | null {
    const stats = this.statistics();
    this.sink?.booleans(this.trues, this.falses);
    this.resetStatistics();
    return stats;
  }

  private resetStatistics(): void {
    this.trues = this.falses = 0;
  }
}

/**
 * BYTE_ARRAY UTF-8 text, dictionary-encoded while the dictionary stays small. A field of another
 * type widened to text holds the text of castCell's value (`007` in an integer field is `7`), or the
 * cell itself when it does not cast.
 */
export class StringColumn implements TypedColumn {
  readonly kind: ColumnKind = "string";
  readonly chunk = new ColumnChunk(true);
  need: ColumnKind | undefined = undefined;
  private min = "";
  private max = "";
  private has = false;
  private readonly field: Field | null;
  private readonly sink: ValueSink | null;

  constructor(field: Field, sink: ValueSink | null = null) {
    this.field = field.type === "string" ? null : { ...field, constraints: {} };
    this.sink = sink;
    if (sink !== null) this.chunk.entrySink = (key, count) => sink.text(key as string, count);
  }

  /** Cells `c` of rows[from, to); as TypedColumn says. A copy per class, so its call to add() stays monomorphic. */
  addCells(rows: readonly (readonly string[])[], c: number, from: number, to: number, missing: ReadonlySet<string> | null): number {
    const chunk = this.chunk;
    let bytes = 0;
    for (let r = from; r < to; r++) {
      const text = rows[r]![c] ?? "";
      if (missing === null ? text === "" : missing.has(text)) {
        chunk.addNull();
        continue;
      }
      bytes += text.length;
      const need = this.add(text);
      if (need !== undefined) {
        this.need = need;
        return -1;
      }
    }
    return bytes;
  }

  add(raw: string): ColumnKind | undefined {
    let text = raw;
    if (this.field !== null) {
      const cast = castCell(this.field, raw, NOTHING_MISSING);
      if (cast.ok && cast.value !== null) text = String(cast.value);
    }
    const out = this.chunk.slot(text);
    if (out !== null) {
      out.lengthPrefixedUtf8(text);
      this.note(text);
    }
    if (this.chunk.dict === null) this.sink?.text(text, 1);
    this.chunk.placed(text.length + 4);
    return undefined;
  }

  private note(v: string): void {
    if (!this.has) {
      this.has = true;
      this.min = this.max = v;
      return;
    }
    if (compareText(v, this.min) < 0) this.min = v;
    else if (compareText(v, this.max) > 0) this.max = v;
  }

  private statistics(): { min: Uint8Array; max: Uint8Array } | null {
    return this.has ? textStatistics(this.min, this.max) : null;
  }

  takeStatistics(): { min: Uint8Array; max: Uint8Array } | null {
    const stats = this.statistics();
    this.resetStatistics();
    return stats;
  }

  private resetStatistics(): void {
    this.has = false;
  }
}
