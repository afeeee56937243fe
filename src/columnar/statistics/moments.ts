// Count, mean and population variance of the finite values of a column, mergeable: the sum is
// compensated (Neumaier's variant of Kahan summation) so the mean is close to exact, and the
// squared deviations follow Welford within a run and Chan, Golub and LeVeque ("Updating formulae
// and a pairwise algorithm for computing sample variances", 1979) across merged runs.
import type { ByteReader, ByteWriter } from "./bytes.ts";

export class Moments {
  count = 0;
  sum = 0;
  /** What the running sum lost to rounding (Neumaier). */
  compensation = 0;
  mean = 0;
  /** Sum of squared deviations from the mean. */
  m2 = 0;

  add(value: number): void {
    const sum = this.sum + value;
    this.compensation += Math.abs(this.sum) >= Math.abs(value) ? this.sum - sum + value : value - sum + this.sum;
    this.sum = sum;
    const count = ++this.count;
    const delta = value - this.mean;
    this.mean += delta / count;
    this.m2 += delta * (value - this.mean);
  }

  /** `value` counted `weight` times: Welford's update with a weight (West 1979), the sum compensated as in add. */
  addWeighted(value: number, weight: number): void {
    if (weight === 1) return this.add(value);
    const term = value * weight;
    const sum = this.sum + term;
    this.compensation += Math.abs(this.sum) >= Math.abs(term) ? this.sum - sum + term : term - sum + this.sum;
    this.sum = sum;
    const count = (this.count += weight);
    const delta = value - this.mean;
    this.mean += (delta * weight) / count;
    this.m2 += delta * weight * (value - this.mean);
  }

  /**
   * Adds values[0, n) at once: their own compensated sum, mean and squared deviations (two passes,
   * no division per value), merged in by Chan et al.'s formula.
   */
  addBatch(values: Float64Array, n: number): void {
    if (n === 0) return;
    let sum = 0;
    let compensation = 0;
    for (let i = 0; i < n; i++) {
      const value = values[i]!;
      const next = sum + value;
      compensation += Math.abs(sum) >= Math.abs(value) ? sum - next + value : value - next + sum;
      sum = next;
    }
    const mean = (sum + compensation) / n;
    let m2 = 0;
    for (let i = 0; i < n; i++) {
      const delta = values[i]! - mean;
      m2 += delta * delta;
    }
    const batch = BATCH;
    batch.count = n;
    batch.sum = sum;
    batch.compensation = compensation;
    batch.mean = mean;
    batch.m2 = m2;
    this.merge(batch);
  }

  merge(other: Moments): void {
    if (other.count === 0) return;
    if (this.count === 0) {
      Object.assign(this, { count: other.count, sum: other.sum, compensation: other.compensation, mean: other.mean, m2: other.m2 });
      return;
    }
    const count = this.count + other.count;
    const delta = other.mean - this.mean;
    this.m2 += other.m2 + ((delta * delta * this.count) / count) * other.count;
    this.mean += (delta * other.count) / count;
    const sum = this.sum + other.sum;
    this.compensation += (Math.abs(this.sum) >= Math.abs(other.sum) ? this.sum - sum + other.sum : other.sum - sum + this.sum) + other.compensation;
    this.sum = sum;
    this.count = count;
  }

  /** The mean from the compensated sum: within a few units in the last place of the true mean. */
  average(): number {
    return (this.sum + this.compensation) / this.count;
  }

  /** Population standard deviation. */
  std(): number {
    return Math.sqrt(Math.max(0, this.m2) / this.count);
  }

  encode(out: ByteWriter): void {
    out.varuint(this.count);
    out.f64(this.sum);
    out.f64(this.compensation);
    out.f64(this.mean);
    out.f64(this.m2);
  }

  static decode(input: ByteReader): Moments {
    const moments = new Moments();
    moments.count = input.varuint();
    moments.sum = input.f64();
    moments.compensation = input.f64();
    moments.mean = input.f64();
    moments.m2 = input.f64();
    return moments;
  }
}

/** addBatch's scratch: a batch's moments before they are merged in. */
const BATCH = new Moments();
