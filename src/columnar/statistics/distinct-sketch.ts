// A column's distinct count once its exact table has given way to the sketches
// (EXACT_VALUES_LIMIT): HyperLogLog, with the keys alone kept beside it (DistinctKeys) while
// there are at most EXACT_DISTINCT_LIMIT of them, so the count stays exact that far
// (docs/statistics.md, "Distinct keys past the table"). A numeric column's KeySketch and a string
// column's DistinctTexts each hold one once sketched; this is the one place the two are fed,
// merged and read together.
import type { ByteReader, ByteWriter } from "./bytes.ts";
import { DistinctKeys } from "./distinct-keys.ts";
import { HLL_REGISTERS, HyperLogLog } from "./hyperloglog.ts";
import { EXACT_VALUES_LIMIT } from "./limits.ts";

export class DistinctSketch {
  readonly hll: HyperLogLog;
  /** The keys while there are at most EXACT_DISTINCT_LIMIT; null when not known (not kept, or stored without them). */
  private keys: DistinctKeys | null;

  private constructor(hll: HyperLogLog, keys: DistinctKeys | null) {
    this.hll = hll;
    this.keys = keys;
  }

  /** An empty sketch; `keepKeys` false when earlier parts of the version are past the limit already. */
  static empty(keepKeys: boolean): DistinctSketch {
    return new DistinctSketch(new HyperLogLog(), keepKeys ? new DistinctKeys(EXACT_VALUES_LIMIT) : null);
  }

  copy(): DistinctSketch {
    return new DistinctSketch(new HyperLogLog(this.hll.registers.slice()), this.keys?.copy() ?? null);
  }

  /** Whether the count is exact: the keys are all still held. */
  get exact(): boolean {
    return this.keys?.exact ?? false;
  }

  count(): number {
    return this.keys?.exact ? this.keys.size : this.hll.estimate();
  }

  add(high: number, low: number): void {
    this.hll.add(high, low);
    this.keys?.add(high, low);
  }

  /** add(KEY[0], KEY[1]), the key read where it lies (hash.ts). */
  addKey(): void {
    this.keys?.addKey();
    this.hll.addKey();
  }

  /** The keys of values[0, n): finite doubles in order with no −0 (HyperLogLog.addDoubles). */
  addDoubles(values: Float64Array, n: number): void {
    this.hll.addDoubles(values, n);
    this.keys?.addDoubles(values, n);
  }

  /** Merges `other` in (left as it was): the keys stay known only if both sides know theirs. */
  merge(other: DistinctSketch): void {
    this.hll.merge(other.hll);
    if (this.keys !== null && other.keys !== null) this.keys.union(other.keys);
    else this.keys = null;
  }

  /** The registers, stored by the owner's stored form (mode 1 or 3) before its other sections. */
  encodeRegisters(out: ByteWriter): void {
    out.raw(this.hll.registers);
  }

  /** Mode 3's last section: the keys (only when `exact`). */
  encodeKeys(out: ByteWriter): void {
    if (this.keys?.exact) this.keys.encode(out);
  }

  /** The registers encodeRegisters wrote; its keys, if stored, read by decodeKeys. */
  static decodeRegisters(input: ByteReader): DistinctSketch {
    return new DistinctSketch(new HyperLogLog(input.raw(HLL_REGISTERS)), null);
  }

  /** Reads encodeKeys's section into a sketch decodeRegisters read. */
  decodeKeys(input: ByteReader): void {
    this.keys = DistinctKeys.decode(input);
  }
}
