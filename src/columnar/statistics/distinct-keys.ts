// A column's distinct values once its exact table has given way to the sketches
// (EXACT_VALUES_LIMIT): their 64-bit keys alone, so `distinct` stays exact up to
// EXACT_DISTINCT_LIMIT (100,000) while the median and histogram already come from KLL
// (docs/statistics.md, "Exact and approximate"). One open-addressing set of 100,000 keys (1 MiB
// and more) probed at random per value misses the cache beside the encoder's buffers, so the
// keys are split by their hash into 16 sets of a few thousand each, and gathered per set, 512 at
// a time, before they are put in: the set being filled then stays in the cache (radix-partitioned
// hashing). Past the limit the keys are let go and HyperLogLog, fed beside them all along,
// answers alone.
import type { ByteReader, ByteWriter } from "./bytes.ts";
import { KEY } from "./hash.ts";
import { EXACT_DISTINCT_LIMIT } from "./limits.ts";
import { sortKeys } from "./radix-sort.ts";

const PARTITION_BITS = 4;
const PARTITIONS = 1 << PARTITION_BITS;
/** Slots a set needs to hold its share of EXACT_DISTINCT_LIMIT under 80 % load: 64 KiB, 1 MiB for the 16. */
const SHARE_SLOTS = 8192;
/** Keys gathered for one set before they are put in it: 4 KiB a set, 64 KiB in all. */
const GATHER = 512;
/** Which 32-bit word of a double holds its sign and exponent (platform byte order). */
const HIGH_WORD = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
const NO_WORDS = new Uint32Array(0);

/**
 * Bits of the spread hash of the key (words[highAt], words[lowAt]): its top bits pick the set,
 * its low bits the slot. The key is read here and only the small result crosses the call: in
 * workerd a lane past 2^30 passed to or returned from a call that is not inlined is a heap
 * number, an allocation per key (docs/statistics.md, "Cost").
 */
function spreadBits(words: Uint32Array, highAt: number, lowAt: number, shift: number, mask: number): number {
  let h = Math.imul(words[highAt]!, 0x9e3779b1) ^ words[lowAt]!;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  return ((h ^ (h >>> 13)) >>> shift) & mask;
}

export class DistinctKeys {
  /** Set p: slot s holds (sets[p][2s], sets[p][2s + 1]), high word first; (0, 0) is empty and the key (0, 0) is `zero`. */
  private sets: Uint32Array[];
  private held = new Int32Array(PARTITIONS);
  private zero = false;
  /** Keys in the sets, the key (0, 0) included. */
  private count = 0;
  /** Keys gathered for set p, not yet put in: gathered[(p · GATHER + i) · 2 …]. */
  private gathered = new Uint32Array(PARTITIONS * GATHER * 2);
  private waiting = new Int32Array(PARTITIONS);
  /** Set once more than EXACT_DISTINCT_LIMIT distinct keys were counted: nothing is kept after. */
  private past = false;

  /** Room for about `keys` keys before the sets grow. */
  constructor(keys = 0) {
    let slots = 32;
    while (keys * 5 > slots * PARTITIONS * 4) slots *= 2;
    this.sets = Array.from({ length: PARTITIONS }, () => new Uint32Array(slots * 2));
  }

  /** Whether the keys are all still held: `size` is then the exact distinct count. */
  get exact(): boolean {
    this.settle();
    return !this.past;
  }

  /** The distinct keys counted (only while exact). */
  get size(): number {
    this.settle();
    return this.count;
  }

  /** Counts the key (high, low). */
  add(high: number, low: number): void {
    if (this.past) return;
    KEY_SCRATCH[0] = high;
    KEY_SCRATCH[1] = low;
    this.gather(KEY_SCRATCH, 0, 1);
  }

  /**
   * add(KEY[0], KEY[1]), the key hash.ts or the encoder left, read here rather than passed (past
   * 2^30 a passed lane is a heap number in workerd; docs/statistics.md, "Cost").
   */
  addKey(): void {
    if (!this.past) this.gather(KEY, 0, 1);
  }

  /** Counts the keys (keyOfNumber's: the bits) of values[0, n), doubles with no −0, read from the array's words. */
  addDoubles(values: Float64Array, n: number): void {
    if (this.past) return;
    const words = new Uint32Array(values.buffer, values.byteOffset, n * 2);
    let last = NaN;
    for (let i = 0; i < n; i++) {
      const value = values[i]!;
      // A run of equal values once (a sorted batch's repeats), as HyperLogLog.addDoubles reads it.
      if (value === last) continue;
      last = value;
      this.gather(words, i * 2 + HIGH_WORD, i * 2 + 1 - HIGH_WORD);
      if (this.past) return;
    }
  }

  /** Gathers the key (words[highAt], words[lowAt]) for its set; a full gathering is put in. */
  private gather(words: Uint32Array, highAt: number, lowAt: number): void {
    const p = spreadBits(words, highAt, lowAt, 32 - PARTITION_BITS, PARTITIONS - 1);
    const n = this.waiting[p]!;
    const at = (p * GATHER + n) * 2;
    this.gathered[at] = words[highAt]!;
    this.gathered[at + 1] = words[lowAt]!;
    if (n + 1 < GATHER) this.waiting[p] = n + 1;
    else this.putIn(p, GATHER);
  }

  /** Puts the n keys gathered for set p into it; lets every key go past the limit. */
  private putIn(p: number, n: number): void {
    this.waiting[p] = 0;
    const gathered = this.gathered;
    let set = this.sets[p]!;
    let held = this.held[p]!;
    // Grown before the probes, so a new key always finds an empty slot (load stays under 80 %):
    // 16 sets of 8,192 slots, 1 MiB, hold the 100,000 keys of the limit.
    while ((held + n) * 5 > set.length * 2) set = this.grow(p);
    const mask = (set.length >>> 1) - 1;
    let added = 0;
    for (let i = p * GATHER * 2, end = (p * GATHER + n) * 2; i < end; i += 2) {
      const high = gathered[i]!;
      const low = gathered[i + 1]!;
      if ((high | low) === 0) {
        if (!this.zero) added++;
        this.zero = true;
        continue;
      }
      let slot = spreadBits(gathered, i, i + 1, 0, mask);
      for (;;) {
        const h = set[slot * 2]!;
        const l = set[slot * 2 + 1]!;
        if (h === high && l === low) break;
        if ((h | l) === 0) {
          set[slot * 2] = high;
          set[slot * 2 + 1] = low;
          held++;
          added++;
          break;
        }
        slot = (slot + 1) & mask;
      }
    }
    this.held[p] = held;
    this.count += added;
    if (this.count > EXACT_DISTINCT_LIMIT) this.letGo();
  }

  /**
   * A set with more slots, every key put in again: four times as many until it could hold its
   * share of the limit, so a set that ends full is copied once or twice, not three or four times
   * (each copy a probe per key, a tenth of the keys' cost in workerd).
   */
  private grow(p: number): Uint32Array {
    const old = this.sets[p]!;
    const slots = old.length / 2;
    const set = new Uint32Array((slots * 4 <= SHARE_SLOTS ? slots * 4 : Math.max(slots * 2, SHARE_SLOTS)) * 2);
    const mask = (set.length >>> 1) - 1;
    for (let i = 0; i < old.length; i += 2) {
      const high = old[i]!;
      const low = old[i + 1]!;
      if ((high | low) === 0) continue;
      let slot = spreadBits(old, i, i + 1, 0, mask);
      while ((set[slot * 2]! | set[slot * 2 + 1]!) !== 0) slot = (slot + 1) & mask;
      set[slot * 2] = high;
      set[slot * 2 + 1] = low;
    }
    return (this.sets[p] = set);
  }

  /** Puts every gathered key in. */
  private settle(): void {
    for (let p = 0; p < PARTITIONS && !this.past; p++) if (this.waiting[p]! > 0) this.putIn(p, this.waiting[p]!);
  }

  private letGo(): void {
    this.past = true;
    this.sets = [];
    this.gathered = NO_WORDS;
    this.count = 0;
    this.zero = false;
  }

  /** Calls `visit` with every key held (only while exact). */
  private forEach(visit: (high: number, low: number) => void): void {
    this.settle();
    if (this.zero) visit(0, 0);
    for (const set of this.sets) for (let i = 0; i < set.length; i += 2) if ((set[i]! | set[i + 1]!) !== 0) visit(set[i]!, set[i + 1]!);
  }

  /** Adds every key of `other` (left as it held them). */
  union(other: DistinctKeys): void {
    if (this.past) return;
    if (!other.exact) return this.letGo();
    other.forEach((high, low) => this.add(high, low));
    this.settle();
  }

  copy(): DistinctKeys {
    this.settle();
    const copy = new DistinctKeys(0);
    if (this.past) copy.letGo();
    else {
      copy.sets = this.sets.map((set) => set.slice());
      copy.held = this.held.slice();
      copy.zero = this.zero;
      copy.count = this.count;
    }
    return copy;
  }

  /** The stored form: the number of keys, then each key's two words, high first, sorted, each once (only while exact). */
  encode(out: ByteWriter): void {
    this.settle();
    const n = this.count;
    const keys = new Uint32Array(n * 2);
    let at = 0;
    this.forEach((high, low) => {
      keys[at++] = high;
      keys[at++] = low;
    });
    // Sorted, so the same keys are stored as the same bytes whatever order they came in.
    const sorted = sortKeys(keys, new Uint32Array(n * 2), n, 0);
    out.varuint(n);
    const { bytes, at: start } = out.claim(n * 8);
    for (let i = 0; i < n * 2; i++) putWord(bytes, start + i * 4, sorted[i]!);
  }

  static decode(input: ByteReader): DistinctKeys {
    const n = input.varuint();
    if (n > EXACT_DISTINCT_LIMIT) throw new RangeError("statistics summary holds too many distinct keys");
    const keys = new DistinctKeys(n);
    let lastHigh = -1;
    let lastLow = -1;
    for (let i = 0; i < n; i++) {
      const high = input.u32();
      const low = input.u32();
      if (high < lastHigh || (high === lastHigh && low <= lastLow)) throw new RangeError("statistics summary holds distinct keys out of order");
      keys.add(high, low);
      lastHigh = high;
      lastLow = low;
    }
    return keys;
  }
}

/** Where add() puts its key so it is gathered as addKey's is. */
const KEY_SCRATCH = new Uint32Array(2);

function putWord(bytes: Uint8Array, at: number, word: number): void {
  bytes[at] = word;
  bytes[at + 1] = word >>> 8;
  bytes[at + 2] = word >>> 16;
  bytes[at + 3] = word >>> 24;
}
