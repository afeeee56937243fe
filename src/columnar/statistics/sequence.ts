// A numeric column whose values arrive as one increasing run of evenly spaced integers (row
// numbers, a date a day, a reading every minute) is kept as that run: exact at any length, three
// numbers stored, one comparison a value (docs/statistics.md, "The summaries"). These are the
// run's rules; KeySketch decides when a column holds one.

/** An increasing run of evenly spaced integers: first, first + step, …, count of them. */
export interface Sequence {
  first: number;
  step: number;
  count: number;
}

/**
 * Takes values[0, n) into `sequence` when they continue it, all or none; false (nothing
 * changed) when one does not, or would pass ±(2^53 − 1), where integers stop being exact.
 */
export function extendSequence(sequence: Sequence, values: Float64Array, n: number): boolean {
  let { first, step, count } = sequence;
  let i = 0;
  if (count === 0 && n > 0) {
    first = values[0]!;
    if (!Number.isSafeInteger(first)) return false;
    count = i = 1;
  }
  if (count === 1 && i < n) {
    step = values[i]! - first;
    if (!(step > 0) || !Number.isSafeInteger(step)) return false;
    count = 2;
    i++;
  }
  const last = first + (count + n - i - 1) * step;
  if (n > i && (!Number.isSafeInteger((count + n - i - 1) * step) || !Number.isSafeInteger(last))) return false;
  for (let at = i, expected = first + count * step; at < n; at++, expected += step) if (values[at] !== expected) return false;
  sequence.first = first;
  sequence.step = step;
  sequence.count = count + n - i;
  return true;
}

/** Whether `next` (not empty) carries on where `sequence` ends, by the same step (a run of one takes any). */
export function continues(sequence: Sequence, next: Sequence): boolean {
  if (sequence.count === 0) return true;
  if (sequence.count === 1) return next.first > sequence.first && (next.count === 1 || next.step === next.first - sequence.first) && Number.isSafeInteger(next.first - sequence.first);
  const end = sequence.first + sequence.count * sequence.step;
  if (next.first !== end || (next.count > 1 && next.step !== sequence.step)) return false;
  return Number.isSafeInteger(sequence.first + (sequence.count + next.count - 1) * sequence.step) && Number.isSafeInteger((sequence.count + next.count - 1) * sequence.step);
}

/** `next` after `sequence` (which it continues), or a copy of `next` alone. */
export function joined(sequence: Sequence | null, next: Sequence): Sequence {
  if (sequence === null || sequence.count === 0) return { ...next };
  const step = sequence.count > 1 ? sequence.step : next.first - sequence.first;
  return { first: sequence.first, step, count: sequence.count + next.count };
}
