// HyperLogLog (Flajolet, Fusy, Gandouet, Meunier 2007, "HyperLogLog: the analysis of a
// near-optimal cardinality estimation algorithm") for columns past the exact distinct limit,
// read with Ertl's improved estimator (Otmar Ertl 2017, "New cardinality estimation algorithms
// for HyperLogLog sketches", arXiv:1702.01284 §4), which needs no bias tables at any cardinality.
// Merging two sketches is taking the larger register, so appends merge exactly.
//
// The two hot paths, a string column's cell (addKey) and a batch of numbers (addDoubles), pass no
// key lanes to a call and mix them in place: in workerd a 32-bit lane past 2^30 passed to or
// returned from a call that is not inlined becomes a heap number, an allocation per value
// (docs/statistics.md, "Cost"). Both set the register add(high, low) sets.
import { HLL_PRECISION } from "./limits.ts";
import { KEY, mixHigh, mixLow } from "./hash.ts";

const P = HLL_PRECISION;
const M = 1 << P;
export const HLL_REGISTERS = M;
/** Hash bits left once P pick the register: the rank runs 1…Q+1. */
const Q = 64 - P;
/** Which 32-bit word of a double holds its sign and exponent (platform byte order). */
const HIGH_WORD = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

export class HyperLogLog {
  readonly registers: Uint8Array;

  constructor(registers?: Uint8Array) {
    if (registers && registers.length !== M) throw new RangeError("HyperLogLog registers of the wrong size");
    this.registers = registers ?? new Uint8Array(M);
  }

  /** Adds the key (high, low); it is mixed first, so raw bit patterns spread evenly. */
  add(high: number, low: number): void {
    const h = mixHigh(high, low);
    const index = h >>> (32 - P);
    // The Q bits after the index: the rest of h, then (rarely needed, so mixed only then) 32 more.
    const rest = (h << P) >>> 0;
    let rank: number;
    if (rest !== 0) rank = Math.clz32(rest) + 1;
    else {
      const l = mixLow(high, low);
      rank = l !== 0 ? 32 - P + Math.clz32(l) + 1 : Q + 1;
    }
    if (rank > this.registers[index]!) this.registers[index] = rank;
  }

  /** add(KEY[0], KEY[1]): the key hash.ts (or src/csv/text-key.ts) made last. */
  addKey(): void {
    this.addAt(KEY, 0, 1);
  }

  /**
   * Adds the keys of values[0, n), finite doubles in order with no −0, a run of equal values
   * once. A double's key is its bits (keyOfNumber), read from a view of the array's words: a
   * double written to keyOfNumber's scratch and read back as two words stalls the load on the store.
   */
  addDoubles(values: Float64Array, n: number): void {
    const words = new Uint32Array(values.buffer, values.byteOffset, n * 2);
    let last = NaN;
    for (let at = 0; at < n; at++) {
      const value = values[at]!;
      if (value === last) continue;
      last = value;
      this.addAt(words, at * 2 + HIGH_WORD, at * 2 + 1 - HIGH_WORD);
    }
  }

  /** add(words[highAt], words[lowAt]): the lanes' places cross the call, small integers, not the lanes. */
  private addAt(words: Uint32Array, highAt: number, lowAt: number): void {
    const high = words[highAt]!;
    const low = words[lowAt]!;
    // mixHigh(high, low), written out.
    let x = low ^ 0x9e3779b9;
    x ^= x >>> 16;
    x = Math.imul(x, 0x85ebca6b);
    x ^= x >>> 13;
    x = Math.imul(x, 0xc2b2ae35);
    let h = high ^ x ^ (x >>> 16);
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    const rest = h << P;
    if (rest === 0) return this.add(high, low);
    const index = h >>> (32 - P);
    const rank = Math.clz32(rest) + 1;
    if (rank > this.registers[index]!) this.registers[index] = rank;
  }

  merge(other: HyperLogLog): void {
    const mine = this.registers;
    const theirs = other.registers;
    for (let i = 0; i < M; i++) if (theirs[i]! > mine[i]!) mine[i] = theirs[i]!;
  }

  /** Ertl's improved raw estimator (Algorithm 6 of the paper). */
  estimate(): number {
    const histogram = new Float64Array(Q + 2);
    for (let i = 0; i < M; i++) histogram[this.registers[i]!]!++;
    let z = M * tau(1 - histogram[Q + 1]! / M);
    for (let k = Q; k >= 1; k--) z = 0.5 * (z + histogram[k]!);
    z += M * sigma(histogram[0]! / M);
    return Math.round((M * M) / (2 * Math.LN2 * z));
  }
}

function sigma(x: number): number {
  if (x === 1) return Infinity;
  let y = 1;
  let z = x;
  let power = x;
  for (;;) {
    power *= power;
    const before = z;
    z += power * y;
    y += y;
    if (z === before) return z;
  }
}

function tau(x: number): number {
  if (x === 0 || x === 1) return 0;
  let y = 1;
  let z = 1 - x;
  let root = x;
  for (;;) {
    root = Math.sqrt(root);
    const before = z;
    y *= 0.5;
    z -= (1 - root) ** 2 * y;
    if (z === before) return z / 3;
  }
}
