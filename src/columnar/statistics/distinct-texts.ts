// A string column's distinct values once its frequent-value counters no longer hold them all:
// their 64-bit keys in an open-addressing set up to EXACT_VALUES_LIMIT of them, then
// HyperLogLog, with the keys alone kept beside it (DistinctKeys) up to EXACT_DISTINCT_LIMIT so
// the count stays exact that far (docs/statistics.md, "The summaries"). A text's count is the frequent counters'
// business, so a slot is its key alone: 8 bytes, half a KeySketch table's, and a set near the
// limit is 1 MiB (1.5 MiB for a moment while it grows). Keys are hashes already (hash.ts), so a
// slot is read off them without mixing again. The stored form is KeySketch's (each key with a
// count of 1, which no reader of a string column uses), so summaries read and merge across it.
import type { ByteReader, ByteWriter } from "./bytes.ts";
import { DistinctSketch } from "./distinct-sketch.ts";
import type { HyperLogLog } from "./hyperloglog.ts";
import { KEY } from "./hash.ts";
import { EXACT_VALUES_LIMIT } from "./limits.ts";

const EXACT = 0;
const SKETCHED = 1;
/** Stored mode 3: sketched as mode 1, then the distinct keys (DistinctKeys' stored form). */
const KEYED = 3;
/** Slots below which the set grows fourfold rather than twofold (a 512 KiB buffer). */
const GROW_FAST_SLOTS = 1 << 16;
const NO_WORDS = new Uint32Array(0);

export class DistinctTexts {
  /** Slot s: words[2s] key high, words[2s + 1] key low; (0, 0) is an empty slot, and the key (0, 0) is `zero`. */
  private words: Uint32Array;
  private mask: number;
  private zero = false;
  /** Keys held while exact (the key (0, 0) included). */
  size = 0;
  /** Set once past EXACT_VALUES_LIMIT, when `words` is let go: HyperLogLog, and the keys while at most EXACT_DISTINCT_LIMIT. */
  private sketched: DistinctSketch | null = null;
  /** False when the rows before these are past EXACT_DISTINCT_LIMIT already: no keys are kept once sketched (as KeySketch.keepKeys). */
  keepKeys = true;

  /** A set with room for `keys` keys before it grows. */
  constructor(keys = 12) {
    let slots = 16;
    while (keys * 5 > slots * 4) slots *= 2;
    this.words = new Uint32Array(slots * 2);
    this.mask = slots - 1;
  }

  /** The sketch's registers, once sketched. */
  get hll(): HyperLogLog | null {
    return this.sketched?.hll ?? null;
  }

  get approximate(): boolean {
    return this.sketched !== null && !this.sketched.exact;
  }

  /** Counts the key (high, low). */
  add(high: number, low: number): void {
    if (this.sketched !== null) {
      this.sketched.add(high, low);
      return;
    }
    if ((high | low) === 0) {
      if (this.zero) return;
      this.zero = true;
    } else {
      // Grown before the probe, so a new key always finds an empty slot (load stays under 80 %).
      if ((this.size + 1) * 5 > (this.mask + 1) * 4) this.grow();
      const words = this.words;
      const mask = this.mask;
      let slot = (low ^ high) & mask;
      for (;;) {
        const h = words[slot * 2]!;
        const l = words[slot * 2 + 1]!;
        if (h === high && l === low) return;
        if ((h | l) === 0) break;
        slot = (slot + 1) & mask;
      }
      words[slot * 2] = high;
      words[slot * 2 + 1] = low;
    }
    if (++this.size > EXACT_VALUES_LIMIT) this.sketch();
  }

  /**
   * add(KEY[0], KEY[1]): a cell's key as the encoder or hash.ts left it, read here rather than
   * passed (past 2^30 a passed lane is a heap number in workerd; docs/statistics.md, "Cost").
   */
  addKey(): void {
    if (this.sketched === null) this.add(KEY[0]!, KEY[1]!);
    else this.sketched.addKey();
  }

  /** Holds a stored key while decoding an exact set, whatever its size (the set was sized for it). */
  private hold(high: number, low: number): void {
    if ((high | low) === 0) this.zero = true;
    else {
      const words = this.words;
      let slot = (low ^ high) & this.mask;
      while ((words[slot * 2]! | words[slot * 2 + 1]!) !== 0) slot = (slot + 1) & this.mask;
      words[slot * 2] = high;
      words[slot * 2 + 1] = low;
    }
    this.size++;
  }

  /** Fourfold while small, then twofold: a set that ends at 128Ki slots rehashed fewer keys. */
  private grow(): void {
    const old = this.words;
    const slots = (this.mask + 1) * (this.mask + 1 < GROW_FAST_SLOTS ? 4 : 2);
    const words = new Uint32Array(slots * 2);
    const mask = slots - 1;
    for (let i = 0; i < old.length; i += 2) {
      const high = old[i]!;
      const low = old[i + 1]!;
      if ((high | low) === 0) continue;
      let slot = (low ^ high) & mask;
      while ((words[slot * 2]! | words[slot * 2 + 1]!) !== 0) slot = (slot + 1) & mask;
      words[slot * 2] = high;
      words[slot * 2 + 1] = low;
    }
    this.words = words;
    this.mask = mask;
  }

  /** Calls `visit` with every key held (only while exact). */
  private forEach(visit: (high: number, low: number) => void): void {
    eachKey(this.words, this.zero, visit);
  }

  /** Leaves exact counting: every key into HyperLogLog and the distinct keys, the set let go. */
  private sketch(): void {
    this.leaveExact(DistinctSketch.empty(this.keepKeys));
  }

  /** Puts every key held into `sketched`, which counts from now on; the set is let go. */
  private leaveExact(sketched: DistinctSketch): void {
    this.forEach((high, low) => sketched.add(high, low));
    this.sketched = sketched;
    this.words = NO_WORDS;
    this.mask = 0;
    this.zero = false;
  }

  distinct(): number {
    return this.sketched === null ? this.size : this.sketched.count();
  }

  /**
   * Merges `other` in (it is left as it was): exact sets add the smaller into the larger, a
   * sketch takes the other's keys or registers.
   */
  merge(other: DistinctTexts): void {
    if (this.sketched === null && other.sketched === null) {
      if (other.size > this.size) {
        const { words, zero } = this;
        this.words = other.words.slice();
        this.mask = other.mask;
        this.zero = other.zero;
        this.size = other.size;
        eachKey(words, zero, (high, low) => this.add(high, low));
      } else other.forEach((high, low) => this.add(high, low));
      return;
    }
    // Ours exact, theirs sketched: a copy of their sketch takes our keys.
    if (this.sketched === null) return this.leaveExact(other.sketched!.copy());
    if (other.sketched === null) other.forEach((high, low) => this.add(high, low));
    else this.sketched.merge(other.sketched);
  }

  encode(out: ByteWriter): void {
    if (this.sketched !== null) {
      out.u8(this.sketched.exact ? KEYED : SKETCHED);
      this.sketched.encodeRegisters(out);
      this.sketched.encodeKeys(out);
      return;
    }
    out.u8(EXACT);
    out.varuint(this.size);
    // Each key as two little-endian words and the count 1, written in one pass over the slots.
    const { bytes, at } = out.claim(this.size * KEY_BYTES);
    let to = at;
    if (this.zero) to = putKey(bytes, to, 0, 0);
    const words = this.words;
    for (let i = 0; i < words.length; i += 2) {
      const high = words[i]!;
      const low = words[i + 1]!;
      if ((high | low) !== 0) to = putKey(bytes, to, high, low);
    }
  }

  static decode(input: ByteReader): DistinctTexts {
    const mode = input.u8();
    if (mode === EXACT) {
      const size = input.varuint();
      // A set stored exact stays exact as stored, past today's limit too (a version's statistics
      // never change once written); it is sketched once a merge adds a key it lacks.
      const set = new DistinctTexts(size + 1);
      for (let i = 0; i < size; i++) {
        const high = input.u32();
        const low = input.u32();
        input.varuint();
        set.hold(high, low);
      }
      return set;
    }
    if (mode !== SKETCHED && mode !== KEYED) throw new RangeError("statistics summary holds an unknown sketch mode");
    const set = new DistinctTexts(0);
    set.words = NO_WORDS;
    set.sketched = DistinctSketch.decodeRegisters(input);
    // Mode 1 was stored past the limit, or by code that kept no keys: its count stays an estimate.
    if (mode === KEYED) set.sketched.decodeKeys(input);
    return set;
  }
}

/** A stored key's bytes: two 32-bit words and its count (1) as a one-byte varint. */
const KEY_BYTES = 9;

/** Writes the key (high, low) with the count 1 at bytes[to]; returns where the next goes. */
function putKey(bytes: Uint8Array, to: number, high: number, low: number): number {
  bytes[to] = high;
  bytes[to + 1] = high >>> 8;
  bytes[to + 2] = high >>> 16;
  bytes[to + 3] = high >>> 24;
  bytes[to + 4] = low;
  bytes[to + 5] = low >>> 8;
  bytes[to + 6] = low >>> 16;
  bytes[to + 7] = low >>> 24;
  bytes[to + 8] = 1;
  return to + KEY_BYTES;
}

/** Calls `visit` with every key of a set's slots (and the key (0, 0) when `zero`). */
function eachKey(words: Uint32Array, zero: boolean, visit: (high: number, low: number) => void): void {
  if (zero) visit(0, 0);
  for (let i = 0; i < words.length; i += 2) if ((words[i]! | words[i + 1]!) !== 0) visit(words[i]!, words[i + 1]!);
}
