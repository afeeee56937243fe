// Column types inferred over every row while the content streams in (docs/column-types.md): for each column,
// the narrowest of integer → number → boolean → date → datetime → string that every
// non-missing cell satisfies. State is a few numbers per column, so memory stays flat in the
// file's size, and it has a JSON form so a resumable upload can carry it between chunks. Pure.
import type { KernelColumns } from "../csv/record-kernel.ts";
import { ALL_TYPES, BOOLEAN, booleanWord, cellClasses, DATE, DATETIME, DEFAULT_DATETIME, INTEGER, NUMBER } from "./cell-classes.ts";
import { DEFAULT_FALSE_VALUES, DEFAULT_MISSING_VALUES, DEFAULT_TRUE_VALUES, type Field, type FieldType, type TableSchema } from "./table-schema.ts";

type InferredBitType = Exclude<FieldType, "string" | "time">;
const BITS: Record<InferredBitType, number> = { integer: INTEGER, number: NUMBER, boolean: BOOLEAN, date: DATE, datetime: DATETIME };
const TYPE_ORDER: readonly InferredBitType[] = ["integer", "number", "boolean", "date", "datetime"];

/** Per column: the types still possible, whether a value was seen, and the spellings seen. */
export interface InferenceState {
  columns: string[];
  missingValues: string[];
  remaining: number[];
  seen: boolean[];
  /** Cleared once a datetime is not in the default `YYYY-MM-DDThh:mm:ssZ` form. */
  defaultDatetime: boolean[];
  /** Bit sets of the `true` / `false` spellings seen (bit n = spelling n, see booleanWord). */
  trueSpellings: number[];
  falseSpellings: number[];
}

function spelled(word: string, spelling: number): string {
  let out = "";
  for (let i = 0; i < word.length; i++) out += spelling & (1 << i) ? word[i]!.toUpperCase() : word[i]!;
  return out;
}

/** The spellings a strict Table Schema reader needs named: the defaults plus any other seen. */
function spellings(word: string, seen: number, defaults: readonly string[]): string[] | undefined {
  const extra: string[] = [];
  for (let s = 0; s < 1 << word.length; s++) {
    if (seen & (1 << s) && !defaults.includes(spelled(word, s))) extra.push(spelled(word, s));
  }
  return extra.length === 0 ? undefined : [...defaults, ...extra];
}

const encoder = new TextEncoder();

/** The record kernel's inference arrays (src/csv/record-kernel.ts), one entry per column. */
type KernelInference = Pick<KernelColumns, "remaining" | "seen" | "defaultDatetime" | "trueSpellings" | "falseSpellings">;

export class TypeInference {
  private readonly state: InferenceState;
  private readonly missing: Set<string>;

  constructor(columns: string[], missingValues: readonly string[] = DEFAULT_MISSING_VALUES) {
    this.state = {
      columns,
      missingValues: [...missingValues],
      remaining: columns.map(() => ALL_TYPES),
      seen: columns.map(() => false),
      defaultDatetime: columns.map(() => true),
      trueSpellings: columns.map(() => 0),
      falseSpellings: columns.map(() => 0),
    };
    this.missing = new Set(missingValues);
  }

  static fromJSON(state: InferenceState): TypeInference {
    const inference = new TypeInference(state.columns, state.missingValues);
    Object.assign(inference.state, structuredClone(state));
    return inference;
  }

  toJSON(): InferenceState {
    return structuredClone(this.state);
  }

  /** One data row's cells, in column order (missing values are skipped here). */
  observe(cells: readonly string[]): void {
    for (let i = 0; i < cells.length && i < this.state.columns.length; i++) {
      const text = cells[i]!;
      if (this.missing.has(text) || !this.undecided(i)) continue;
      const bytes = encoder.encode(text);
      this.observeCell(i, bytes, 0, bytes.length);
    }
  }

  /** Whether column `i` can still be anything but a string: if not, its cells need no look. */
  undecided(i: number): boolean {
    return this.state.remaining[i] !== 0;
  }

  /** A non-missing, non-empty cell of column `i`, as bytes. */
  observeCell(i: number, buf: Uint8Array, from: number, to: number): void {
    const s = this.state;
    s.seen[i] = true;
    const classes = from === to ? 0 : cellClasses(buf, from, to);
    const now = s.remaining[i]! & classes;
    s.remaining[i] = now;
    if (now & DATETIME && !(classes & DEFAULT_DATETIME)) s.defaultDatetime[i] = false;
    if (now & BOOLEAN) {
      const word = booleanWord(buf, from, to)!;
      if (word.value) s.trueSpellings[i]! |= 1 << word.spelling;
      else s.falseSpellings[i]! |= 1 << word.spelling;
    }
  }

  /** Copies the state of every column into the record kernel's arrays (src/csv/record-kernel.ts). */
  toKernel(k: KernelInference): void {
    const s = this.state;
    for (let i = 0; i < s.columns.length; i++) {
      k.remaining[i] = s.remaining[i]!;
      k.seen[i] = s.seen[i] ? 1 : 0;
      k.defaultDatetime[i] = s.defaultDatetime[i] ? 1 : 0;
      k.trueSpellings[i] = s.trueSpellings[i]!;
      k.falseSpellings[i] = s.falseSpellings[i]!;
    }
  }

  /** Takes the state back from the record kernel's arrays after it observed cells. */
  fromKernel(k: KernelInference): void {
    const s = this.state;
    for (let i = 0; i < s.columns.length; i++) {
      s.remaining[i] = k.remaining[i]!;
      s.seen[i] = k.seen[i] === 1;
      s.defaultDatetime[i] = k.defaultDatetime[i] === 1;
      s.trueSpellings[i] = k.trueSpellings[i]!;
      s.falseSpellings[i] = k.falseSpellings[i]!;
    }
  }

  /** The inferred field of column `i`; a column with no value at all is a string. */
  field(i: number): Field {
    const s = this.state;
    const name = s.columns[i]!;
    const left = s.seen[i] ? s.remaining[i]! : 0;
    const type: FieldType = TYPE_ORDER.find((t) => (left & BITS[t]) !== 0) ?? "string";
    const field: Field = { name, type };
    if (type === "datetime" && !s.defaultDatetime[i]) field.format = "any";
    if (type === "boolean") {
      const trueValues = spellings("true", s.trueSpellings[i]!, DEFAULT_TRUE_VALUES);
      const falseValues = spellings("false", s.falseSpellings[i]!, DEFAULT_FALSE_VALUES);
      if (trueValues || falseValues) {
        field.trueValues = trueValues ?? [...DEFAULT_TRUE_VALUES];
        field.falseValues = falseValues ?? [...DEFAULT_FALSE_VALUES];
      }
    }
    return field;
  }

  schema(): TableSchema {
    return { fields: this.state.columns.map((_, i) => this.field(i)), missingValues: [...this.state.missingValues] };
  }
}
