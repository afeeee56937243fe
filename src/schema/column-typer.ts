// The CSV scanner's cell sink for docs/column-types.md: while an upload streams, each cell of a typed column
// is inferred (TypeInference) or checked against its declared or stored field, from the bytes
// the scanner already holds. Columns already known to be text cost nothing. Pure.
import type { KernelColumns, KernelTyping } from "../csv/record-kernel.ts";
import type { CellSink } from "../csv/types.ts";
import { BOOLEAN, cellClasses, DATE, DATETIME, INTEGER, NUMBER, PADDED_INTEGER, PADDED_NUMBER } from "./cell-classes.ts";
import { castCell } from "./cast.ts";
import { carriedDeclaration, declaredFieldsByColumn, type DeclaredSchema } from "./declared.ts";
import { fieldNames } from "./field-names.ts";
import { TypeInference, type InferenceState } from "./infer.ts";
import { SchemaError, shortValue } from "./schema-error.ts";
import { isPatternFormat } from "./strftime.ts";
import { DEFAULT_MISSING_VALUES, type Field, type TableSchema } from "./table-schema.ts";

/** Create and replace infer what is not declared; an append is held to the stored schema. */
export type TypingPlan =
  | {
      kind: "infer";
      declared: DeclaredSchema | null;
      /** The declaration came with the parent version: fields whose columns are gone are dropped, not refused. */
      carried?: boolean;
    }
  | { kind: "check"; schema: TableSchema };

/**
 * What a resumable upload's next chunk needs to go on typing after a record end (JSON): the
 * declaration in force and the inference so far. Inference only narrows, so cells of a record
 * that a chunk cut in two and the next chunk scans again count once.
 */
export interface TypingCheckpoint {
  declared: DeclaredSchema | null;
  inference: InferenceState | null;
}

const SKIP = 0;
const INFER = 1;
/** A field without options: its type bit from cellClasses decides. */
const CHECK_BITS = 2;
/** A field with options (decimalChar, trueValues, required, a pattern format…): the cell is decoded and cast. */
const CHECK_CAST = 3;

/** The bits a field's type takes: a checked integer or number takes leading zeros, as cast.ts does. */
const TYPE_BITS = { integer: INTEGER | PADDED_INTEGER, number: NUMBER | PADDED_NUMBER, boolean: BOOLEAN, date: DATE, datetime: DATETIME, string: 0, time: 0 } as const;
const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
const NOTHING_MISSING: ReadonlySet<string> = new Set();

function modeOf(field: Field): number {
  if (field.type === "string" && !field.constraints?.required) return SKIP;
  // A time has no type bit (inference never chooses it): its cells are always cast.
  if (field.type === "time") return CHECK_CAST;
  const plain = !field.decimalChar && !field.groupChar && !field.trueValues && !field.falseValues && !field.constraints?.required && !isPatternFormat(field.format);
  return plain ? CHECK_BITS : CHECK_CAST;
}

export class ColumnTyper implements CellSink, KernelTyping {
  private readonly plan: TypingPlan;
  private columns: string[] = [];
  private modes = new Uint8Array(0);
  /** 1 for a column whose cells still need a look (checked, or inferred and not yet a string); kept up to date by `type`. */
  private watched = new Uint8Array(0);
  /** The declared or stored field of each checked column. */
  private checked: (Field | null)[] = [];
  private inference: TypeInference | null = null;
  private declared: DeclaredSchema | null = null;
  private missing: ReadonlySet<string>;
  private onlyEmptyIsMissing: boolean;
  private longestMissing: number;

  /** 1-based record number of the record being scanned. */
  private row = 1;
  private col = 0;
  private active = false;
  /**
   * The record's first broken cell, raised when the record ends: the scanner's own checks of
   * that record (field count, a repeated header) come first.
   */
  private broken: SchemaError | null = null;
  /** Pieces of the current cell: 0, 1 (kept as a view), or 2 (copied into `carry`). */
  private pieces = 0;
  private view: Uint8Array = new Uint8Array(0);
  private viewFrom = 0;
  private viewTo = 0;
  private carry = new Uint8Array(64);
  private carried = 0;

  constructor(plan: TypingPlan) {
    this.plan = plan;
    const missingValues = plan.kind === "check" ? plan.schema.missingValues : (plan.declared?.missingValues ?? DEFAULT_MISSING_VALUES);
    this.missing = new Set(missingValues);
    this.onlyEmptyIsMissing = missingValues.length === 1 && missingValues[0] === "";
    this.longestMissing = Math.max(0, ...missingValues.map((m) => new TextEncoder().encode(m).length));
    if (plan.kind === "check") this.begin(plan.schema.fields.map((f) => f.name), plan.schema.fields, 1);
  }

  /** Table mode: the header record ended; data rows start at row 2. Fields are named by fieldNames. */
  header(cells: string[]): void {
    if (this.plan.kind !== "infer") return;
    const names = fieldNames(cells);
    const declaration = this.plan.carried ? carriedDeclaration(this.plan.declared, names) : this.plan.declared;
    this.declared = declaration;
    const declared = declaration ? declaredFieldsByColumn(names, declaration) : names.map(() => null);
    this.inference = new TypeInference(names, [...this.missing]);
    this.begin(names, declared, 2);
  }

  piece(buf: Uint8Array, from: number, to: number): void {
    if (!this.active) return;
    if (this.pieces === 0) {
      this.view = buf;
      this.viewFrom = from;
      this.viewTo = to;
      this.pieces = 1;
      return;
    }
    this.toCarry();
    this.append(buf, from, to);
  }

  cell(buf: Uint8Array, from: number, to: number): void {
    const col = this.col++;
    if (this.active) this.type(col, buf, from, to);
    this.active = this.activeFor(this.col);
  }

  quote(): void {
    if (!this.active) return;
    this.toCarry();
    this.append(new Uint8Array([0x22]), 0, 1);
  }

  /** The scanner's buffer ends inside a field: keep what of it was seen. */
  chunkEnd(): void {
    if (this.active && this.pieces === 1) this.toCarry();
  }

  endField(): void {
    const col = this.col++;
    if (this.active) {
      if (this.pieces === 2) this.type(col, this.carry, 0, this.carried);
      else if (this.pieces === 1) this.type(col, this.view, this.viewFrom, this.viewTo);
      else this.type(col, this.carry, 0, 0);
    }
    this.pieces = 0;
    this.active = this.activeFor(this.col);
  }

  endRecord(): void {
    if (this.broken !== null) throw this.broken;
    this.row++;
    this.col = 0;
    this.active = this.activeFor(0);
  }

  /** `n` blank lines that are records of one empty cell (a one-column table). */
  blankRecords(n: number): void {
    if (n > 0 && this.modes.length === 1 && this.modes[0] !== SKIP) this.type(0, this.carry, 0, 0);
    if (this.broken !== null) throw this.broken;
    this.row += n;
  }

  /**
   * The record kernel types whole records for this typer (src/csv/record-kernel.ts) when every
   * column is skipped, inferred or checked by its type bit alone, and only "" is missing.
   */
  toKernel(k: KernelColumns): boolean {
    const modes = this.modes;
    if (!this.onlyEmptyIsMissing || modes.length !== k.mode.length) return false;
    for (let col = 0; col < modes.length; col++) {
      const mode = modes[col]!;
      if (mode === CHECK_CAST) return false;
      k.mode[col] = mode === SKIP ? 0 : mode === INFER ? 1 : 2;
      k.wanted[col] = mode === CHECK_BITS ? TYPE_BITS[this.checked[col]!.type] : 0;
    }
    if (this.inference !== null) this.inference.toKernel(k);
    else if (modes.includes(INFER)) return false;
    return true;
  }

  fromKernel(k: KernelColumns, records: number): void {
    this.inference?.fromKernel(k);
    for (let col = 0; col < this.modes.length; col++) {
      if (this.modes[col] === INFER && !this.inference!.undecided(col)) this.watched[col] = 0;
    }
    this.row += records;
    this.col = 0;
    this.active = this.activeFor(0);
  }

  /** The version's schema: declared fields as given, the rest inferred, in column order. */
  schema(): TableSchema {
    if (this.plan.kind === "check") return this.plan.schema;
    const inference = this.inference ?? new TypeInference(this.columns, [...this.missing]);
    return {
      // Named by the typer's field names: an upload's inference state from before names were made unique has the header's.
      fields: this.columns.map((name, i) => this.checked[i] ?? { ...inference.field(i), name }),
      missingValues: [...this.missing],
    };
  }

  /** The declaration the schema was built with (a carried one without its gone columns). */
  declaration(): DeclaredSchema | null {
    return this.plan.kind === "infer" ? this.declared : null;
  }

  /** What a resumable upload carries between chunks. */
  inferenceState(): InferenceState | null {
    return this.inference?.toJSON() ?? null;
  }

  checkpoint(): TypingCheckpoint {
    return { declared: this.declared, inference: this.inferenceState() };
  }

  /**
   * Goes on after a record end of an earlier chunk: `scan.records` records are behind (the
   * header among them in table mode), so the next one is record `scan.records + 1`.
   */
  resume(scan: { records: number; header: string[] | null }, at: TypingCheckpoint | null): void {
    const row = scan.records + 1;
    if (this.plan.kind === "check") {
      this.row = row;
      return;
    }
    const columns = fieldNames(scan.header ?? []);
    this.declared = at?.declared ?? null;
    const declared = this.declared ? declaredFieldsByColumn(columns, this.declared) : columns.map(() => null);
    this.inference = at?.inference ? TypeInference.fromJSON(at.inference) : new TypeInference(columns, [...this.missing]);
    this.begin(columns, declared, row);
  }

  private begin(columns: string[], checked: (Field | null)[], firstDataRow: number): void {
    this.columns = columns;
    this.checked = checked;
    this.modes = Uint8Array.from(checked, (field) => (field === null ? INFER : modeOf(field)));
    this.watched = Uint8Array.from(this.modes, (mode, col) => (mode !== SKIP && (mode !== INFER || this.inference!.undecided(col)) ? 1 : 0));
    this.row = firstDataRow;
    this.col = 0;
    this.active = this.activeFor(0);
  }

  /** Per cell, so one array read: past the header's columns there is nothing to watch. */
  private activeFor(col: number): boolean {
    return this.watched[col] === 1;
  }

  private isMissing(buf: Uint8Array, from: number, to: number): boolean {
    if (this.onlyEmptyIsMissing) return from === to;
    if (to - from > this.longestMissing) return false;
    return this.missing.has(decoder.decode(buf.subarray(from, to)));
  }

  private type(col: number, buf: Uint8Array, from: number, to: number): void {
    const mode = this.modes[col]!;
    if (mode === INFER) {
      if (this.isMissing(buf, from, to)) return;
      const inference = this.inference!;
      inference.observeCell(col, buf, from, to);
      if (!inference.undecided(col)) this.watched[col] = 0;
      return;
    }
    const field = this.checked[col]!;
    if (this.isMissing(buf, from, to)) {
      // Reported as written: "NA" tells the publisher which missing value broke the constraint.
      if (field.constraints?.required) this.mismatch(field, decoder.decode(buf.subarray(from, to)), `${field.type} (required)`);
      return;
    }
    if (mode === CHECK_BITS) {
      if (from < to && cellClasses(buf, from, to) & TYPE_BITS[field.type]) return;
      return this.mismatch(field, decoder.decode(buf.subarray(from, to)), field.type);
    }
    const text = decoder.decode(buf.subarray(from, to));
    const cast = castCell(field, text, NOTHING_MISSING);
    if (!cast.ok) this.mismatch(field, text, cast.expected);
  }

  private mismatch(field: Field, text: string, expected: string): void {
    if (this.broken !== null) return;
    const value = shortValue(text);
    this.broken = new SchemaError("schema_mismatch", `row ${this.row}, column "${field.name}": ${JSON.stringify(value)} is not ${expected}`, {
      row: this.row,
      column: field.name,
      value,
      expected,
    });
  }

  private toCarry(): void {
    if (this.pieces === 2) return;
    this.carried = 0;
    if (this.pieces === 1) this.append(this.view, this.viewFrom, this.viewTo);
    this.pieces = 2;
  }

  private append(buf: Uint8Array, from: number, to: number): void {
    const n = to - from;
    if (this.carried + n > this.carry.length) {
      const next = new Uint8Array(Math.max(this.carry.length * 2, this.carried + n));
      next.set(this.carry.subarray(0, this.carried));
      this.carry = next;
    }
    this.carry.set(buf.subarray(from, to), this.carried);
    this.carried += n;
  }
}
