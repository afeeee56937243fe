// HyperLogLog (Flajolet, Fusy, Gandouet, Meunier 2007, "HyperLogLog: the analysis of a
// near-optimal cardinality estimation algorithm") for columns past the exact distinct limit,
// read with Ertl's improved estimator (Otmar Ertl 2017, "New cardinality estimation algorithms
// for HyperLogLog sketches", arXiv:1702.01284 §4), which needs no bias tables at any cardinality.
// Merging two sketches is taking the larger register, so appends merge exactly.
import { HLL_PRECISION } from "./limits.ts";
import { mixHigh, mixLow } from "./hash.ts";

const P = HLL_PRECISION;
const M = 1 << P;
export const HLL_REGISTERS = M;
/** Hash bits left once P pick the register: the rank runs 1…Q+1. */
const Q = 64 - P;

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
