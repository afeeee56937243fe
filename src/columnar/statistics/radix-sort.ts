// Sorts a batch of doubles in linear time, for the column statistics' sorted batches
// (docs/statistics.md, "Cost"). Values spread evenly over their range (prices, timestamps) are
// dealt into as many buckets as values by where they fall between the least and the greatest,
// and each bucket, a few values, sorted by insertion: two passes. Other batches get an LSD radix
// sort of their bit patterns, each turned into an unsigned key that orders as the double does
// (sign bit flipped for a positive value, every bit for a negative one), six passes of at most
// 11 bits, a pass skipped when every key shares its digit. TypedArray.prototype.sort compares
// element by element and costs several times more.

const DIGITS = 6;
const BUCKETS = 2048;
/** Bit offsets of the six digits within their 32-bit word: three in the low word, three in the high. */
const SHIFTS = [0, 11, 22, 0, 11, 22];
const WIDTHS = [0x7ff, 0x7ff, 0x3ff, 0x7ff, 0x7ff, 0x3ff];

const counts = new Uint32Array(DIGITS * BUCKETS);
let spare = new Float64Array(0);
/** Which 32-bit word of a double holds its sign and exponent (platform byte order). */
const HIGH = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/** Sorts `values` (no NaN; −0 and 0 count as equal) in place, ascending. */
export function sortDoubles(values: Float64Array): void {
  if (!sortSpread(values)) radixSort(values);
}

/**
 * Sorts `values` (as sortDoubles) when they are in order already or spread evenly enough to deal
 * into buckets, however many; false, with `values` untouched, when they are not: a radix sort's
 * passes over more than a few thousand values miss the cache, so a caller with many sorts them
 * in pieces instead.
 */
export function sortSpread(values: Float64Array): boolean {
  const n = values.length;
  let ordered = 1;
  while (ordered < n && values[ordered - 1]! <= values[ordered]!) ordered++;
  // Already in order (a key column, a log's timestamps): nothing to do.
  if (ordered >= n) return true;
  if (spare.length < n) spare = new Float64Array(Math.max(n, spare.length * 2));
  return n >= SMALL && bucketSort(values);
}

/** Batches shorter than this go to the radix sort: dealing them costs about what it saves. */
const SMALL = 256;
/** A bucket holding more values than this is not sorted by insertion. */
const CROWDED = 24;
let bucketOf = new Uint32Array(0);
let bucketStarts = new Uint32Array(0);

/**
 * Deals values into n buckets by (value − least) / (greatest − least), a map that never orders
 * two values the other way round (each step rounds monotonically), so the buckets in turn,
 * each sorted, are the whole sorted. False, with `values` untouched, when the values crowd into
 * a few buckets (a skewed batch, many equal values, infinities or a range past the largest
 * double): the radix sort takes those whatever their spread.
 */
function bucketSort(values: Float64Array): boolean {
  const n = values.length;
  let least = values[0]!;
  let greatest = least;
  for (let i = 1; i < n; i++) {
    const value = values[i]!;
    if (value < least) least = value;
    else if (value > greatest) greatest = value;
  }
  const scale = n / (greatest - least);
  if (!(scale < Infinity) || !(scale > 0)) return false;
  if (bucketOf.length < n) {
    bucketOf = new Uint32Array(n);
    bucketStarts = new Uint32Array(n + 1);
  }
  const starts = bucketStarts;
  starts.fill(0, 0, n + 1);
  const last = n - 1;
  for (let i = 0; i < n; i++) {
    const bucket = Math.min(last, Math.floor((values[i]! - least) * scale));
    bucketOf[i] = bucket;
    starts[bucket + 1]!++;
  }
  let crowded = 0;
  for (let b = 1; b <= n; b++) {
    if (starts[b]! > CROWDED) crowded += starts[b]!;
    starts[b] = starts[b]! + starts[b - 1]!;
  }
  // More than a sixteenth of the values in crowded buckets: dealing does not spread this batch.
  if (crowded > n >> 4) return false;
  const dealt = spare;
  const next = bucketOf;
  for (let i = 0; i < n; i++) {
    const bucket = next[i]!;
    const at = starts[bucket]!;
    starts[bucket] = at + 1;
    dealt[at] = values[i]!;
  }
  // starts[b] is now where bucket b ends. Insertion sort over the whole: a value moves back only
  // past the values of its own bucket.
  values.set(dealt.subarray(0, n));
  for (let i = 1; i < n; i++) {
    const value = values[i]!;
    let j = i - 1;
    if (values[j]! <= value) continue;
    while (j >= 0 && values[j]! > value) {
      values[j + 1] = values[j]!;
      j--;
    }
    values[j + 1] = value;
  }
  return true;
}

/** An LSD radix sort of the doubles' bit patterns, through `spare` (at least values' length). */
function radixSort(values: Float64Array): void {
  const n = values.length;
  const words = new Uint32Array(values.buffer, values.byteOffset, n * 2);
  for (let i = 0; i < n; i++) {
    const high = words[i * 2 + HIGH]!;
    if (high >= 0x80000000) {
      words[i * 2 + HIGH] = ~high >>> 0;
      words[i * 2 + 1 - HIGH] = ~words[i * 2 + 1 - HIGH]! >>> 0;
    } else words[i * 2 + HIGH] = (high | 0x80000000) >>> 0;
  }
  const sorted = sortKeys(words, new Uint32Array(spare.buffer, 0, n * 2), n, HIGH);
  if (sorted !== words) words.set(sorted);
  for (let i = 0; i < n; i++) {
    const high = words[i * 2 + HIGH]!;
    if (high >= 0x80000000) words[i * 2 + HIGH] = (high & 0x7fffffff) >>> 0;
    else {
      words[i * 2 + HIGH] = ~high >>> 0;
      words[i * 2 + 1 - HIGH] = ~words[i * 2 + 1 - HIGH]! >>> 0;
    }
  }
}

/**
 * Sorts n unsigned 64-bit keys ascending, key i the words keys[2i + high] (its high 32 bits) and
 * keys[2i + 1 − high] (its low), with an LSD radix sort through `spare` (as long as `keys`), six
 * passes of at most 11 bits, a pass skipped when every key shares its digit. Returns whichever of
 * the two arrays holds the sorted keys.
 */
export function sortKeys(keys: Uint32Array, spare: Uint32Array, n: number, high: 0 | 1): Uint32Array {
  let from = keys;
  let to = spare;
  counts.fill(0);
  for (let i = 0; i < n; i++) {
    const low = from[i * 2 + 1 - high]!;
    const top = from[i * 2 + high]!;
    counts[low & 0x7ff]!++;
    counts[BUCKETS + ((low >>> 11) & 0x7ff)]!++;
    counts[2 * BUCKETS + (low >>> 22)]!++;
    counts[3 * BUCKETS + (top & 0x7ff)]!++;
    counts[4 * BUCKETS + ((top >>> 11) & 0x7ff)]!++;
    counts[5 * BUCKETS + (top >>> 22)]!++;
  }
  for (let digit = 0; digit < DIGITS; digit++) {
    const base = digit * BUCKETS;
    const shift = SHIFTS[digit]!;
    const mask = WIDTHS[digit]!;
    const word = digit < 3 ? 1 - high : high;
    // A digit every key shares leaves the order as it is.
    const first = (from[word]! >>> shift) & mask;
    if (counts[base + first] === n) continue;
    let sum = 0;
    for (let b = 0; b <= mask; b++) {
      const count = counts[base + b]!;
      counts[base + b] = sum;
      sum += count;
    }
    for (let i = 0; i < n; i++) {
      const at = counts[base + ((from[i * 2 + word]! >>> shift) & mask)]!++;
      to[at * 2] = from[i * 2]!;
      to[at * 2 + 1] = from[i * 2 + 1]!;
    }
    const swap = from;
    from = to;
    to = swap;
  }
  return from;
}
