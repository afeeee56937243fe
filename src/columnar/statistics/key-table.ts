// An open-addressing table of 64-bit keys (two 32-bit lanes) with a count each: a numeric
// column's exact value → count map (key-sketch.ts). A slot is 16 bytes of one buffer (key high, key low, count as a double), so a probe touches one
// cache line, and adding a key that is already there allocates nothing.
import { slotHash } from "./hash.ts";

/** Slots below which a table grows fourfold rather than twofold (a 1 MiB buffer). */
const GROW_FAST_SLOTS = 1 << 16;

export class KeyTable {
  /** Slot s: words[4s] key high, words[4s + 1] key low; counts[2s + 1] its count (0: empty). */
  words: Uint32Array;
  counts: Float64Array;
  size = 0;
  private mask: number;

  constructor(slots = 16) {
    const buffer = new ArrayBuffer(slots * 16);
    this.words = new Uint32Array(buffer);
    this.counts = new Float64Array(buffer);
    this.mask = slots - 1;
  }

  /** A table with room for `keys` keys without growing. */
  static sized(keys: number): KeyTable {
    let slots = 16;
    while (keys * 5 > slots * 4) slots *= 2;
    return new KeyTable(slots);
  }

  get slots(): number {
    return this.mask + 1;
  }

  high(slot: number): number {
    return this.words[slot * 4]!;
  }

  low(slot: number): number {
    return this.words[slot * 4 + 1]!;
  }

  count(slot: number): number {
    return this.counts[slot * 2 + 1]!;
  }

  /** The slot of the key (high, low), claimed for it when absent (its count then 0). */
  slotOf(high: number, low: number): number {
    // Grown before the probe, so there is always room for a new key (load stays under 80 %).
    if ((this.size + 1) * 5 > (this.mask + 1) * 4) this.grow();
    const words = this.words;
    const counts = this.counts;
    const mask = this.mask;
    let slot = slotHash(high, low) & mask;
    for (;;) {
      if (counts[slot * 2 + 1] === 0) {
        words[slot * 4] = high;
        words[slot * 4 + 1] = low;
        this.size++;
        return slot;
      }
      if (words[slot * 4] === high && words[slot * 4 + 1] === low) return slot;
      slot = (slot + 1) & mask;
    }
  }

  /** Adds `count` (more than 0) to the key; returns its slot. */
  add(high: number, low: number, count: number): number {
    const slot = this.slotOf(high, low);
    this.counts[slot * 2 + 1]! += count;
    return slot;
  }

  /**
   * Grows fourfold while the table is small and twofold past GROW_FAST_SLOTS, so a distinct set
   * that ends at 64Ki slots rehashed about a third of its keys instead of all of them; the keys
   * move in one tight loop (each is distinct, and the new table has room for all).
   */
  private grow(): void {
    const { words, counts } = this;
    const old = this.mask + 1;
    const slots = old * (old < GROW_FAST_SLOTS ? 4 : 2);
    const buffer = new ArrayBuffer(slots * 16);
    const newWords = new Uint32Array(buffer);
    const newCounts = new Float64Array(buffer);
    const mask = slots - 1;
    for (let i = 0; i < old; i++) {
      const count = counts[i * 2 + 1]!;
      if (count === 0) continue;
      const high = words[i * 4]!;
      const low = words[i * 4 + 1]!;
      let slot = slotHash(high, low) & mask;
      while (newCounts[slot * 2 + 1] !== 0) slot = (slot + 1) & mask;
      newWords[slot * 4] = high;
      newWords[slot * 4 + 1] = low;
      newCounts[slot * 2 + 1] = count;
    }
    this.words = newWords;
    this.counts = newCounts;
    this.mask = mask;
  }

  /** A copy sharing nothing with this table. */
  clone(): KeyTable {
    const copy = new KeyTable(1);
    const buffer = this.words.buffer.slice(0);
    copy.words = new Uint32Array(buffer);
    copy.counts = new Float64Array(buffer);
    copy.size = this.size;
    copy.mask = this.mask;
    return copy;
  }

  /** Calls `visit` with the slot of every key present. */
  forEach(visit: (slot: number) => void): void {
    const counts = this.counts;
    for (let i = 0; i <= this.mask; i++) if (counts[i * 2 + 1] !== 0) visit(i);
  }

  /** The slots of the keys present, in table order. */
  occupied(): number[] {
    const slots: number[] = [];
    this.forEach((slot) => slots.push(slot));
    return slots;
  }
}
