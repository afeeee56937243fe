// The summary of a boolean column: exact counts of true, false and missing cells, which merge by
// addition; distinct is how many of true and false occur.
import type { Cell } from "../../schema/cast.ts";
import type { ByteReader, ByteWriter } from "./bytes.ts";

export interface BooleanEntry {
  true: number;
  false: number;
}

export class BooleanColumn {
  nulls = 0;
  trues = 0;
  falses = 0;

  observe(cell: Cell): void {
    if (cell === null) this.nulls++;
    else if (cell === true) this.trues++;
    else if (cell === false) this.falses++;
    else if (String(cell).toLowerCase() === "true") this.trues++;
    else this.falses++;
  }

  /** Counts `trues` true and `falses` false cells at once. */
  observeCounts(trues: number, falses: number): void {
    this.trues += trues;
    this.falses += falses;
  }

  merge(other: BooleanColumn): void {
    this.nulls += other.nulls;
    this.trues += other.trues;
    this.falses += other.falses;
  }

  get distinct(): number {
    return (this.trues > 0 ? 1 : 0) + (this.falses > 0 ? 1 : 0);
  }

  entry(): BooleanEntry {
    return { true: this.trues, false: this.falses };
  }

  encode(out: ByteWriter): void {
    out.varuint(this.nulls);
    out.varuint(this.trues);
    out.varuint(this.falses);
  }

  static decode(input: ByteReader): BooleanColumn {
    const column = new BooleanColumn();
    column.nulls = input.varuint();
    column.trues = input.varuint();
    column.falses = input.varuint();
    return column;
  }
}
