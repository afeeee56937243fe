// An open-addressing table of 64-bit keys (two 32-bit lanes) with a count each, and optionally a
// double each: the exact distinct set, the numeric value→count map and the frequent-value
// counters all use it. Typed arrays only, so adding a key that is already there allocates nothing.
import { mixHigh } from "./hash.ts";

export class KeyTable {
  high: Uint32Array;
  low: Uint32Array;
  /** 0 marks an empty slot. */
  counts: Float64Array;
  values: Float64Array | null;
  size = 0;
  private mask: number;

  constructor(withValues: boolean, slots = 16) {
    this.high = new Uint32Array(slots);
    this.low = new Uint32Array(slots);
    this.counts = new Float64Array(slots);
    this.values = withValues ? new Float64Array(slots) : null;
    this.mask = slots - 1;
  }

  /** The slot of the key (high, low), claimed for it when absent (its count then 0). */
  slotOf(high: number, low: number): number {
    let slot = mixHigh(high, low) & this.mask;
    const counts = this.counts;
    for (;;) {
      if (counts[slot] === 0) {
        if ((this.size + 1) * 5 > this.counts.length * 4) {
          this.grow();
          return this.slotOf(high, low);
        }
        this.high[slot] = high;
        this.low[slot] = low;
        this.size++;
        return slot;
      }
      if (this.high[slot] === high && this.low[slot] === low) return slot;
      slot = (slot + 1) & this.mask;
    }
  }

  /** Adds `count` to the key; `value` is kept when the key is new and the table holds values. */
  add(high: number, low: number, count: number, value: number): number {
    const slot = this.slotOf(high, low);
    if (this.counts[slot] === 0 && this.values) this.values[slot] = value;
    this.counts[slot]! += count;
    return slot;
  }

  private grow(): void {
    const { high, low, counts, values } = this;
    const slots = counts.length * 2;
    this.high = new Uint32Array(slots);
    this.low = new Uint32Array(slots);
    this.counts = new Float64Array(slots);
    this.values = values ? new Float64Array(slots) : null;
    this.mask = slots - 1;
    this.size = 0;
    for (let i = 0; i < counts.length; i++) {
      if (counts[i] === 0) continue;
      const slot = this.slotOf(high[i]!, low[i]!);
      this.counts[slot] = counts[i]!;
      if (values) this.values![slot] = values[i]!;
    }
  }

  /** A copy sharing nothing with this table. */
  clone(): KeyTable {
    const copy = new KeyTable(this.values !== null, 1);
    copy.high = this.high.slice();
    copy.low = this.low.slice();
    copy.counts = this.counts.slice();
    copy.values = this.values ? this.values.slice() : null;
    copy.size = this.size;
    copy.mask = this.mask;
    return copy;
  }

  /** Calls `visit` with the slot of every key present. */
  forEach(visit: (slot: number) => void): void {
    const counts = this.counts;
    for (let i = 0; i < counts.length; i++) if (counts[i] !== 0) visit(i);
  }

  /** The slots of the keys present, in table order. */
  occupied(): number[] {
    const slots: number[] = [];
    this.forEach((slot) => slots.push(slot));
    return slots;
  }
}
