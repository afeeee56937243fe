// Sorts a batch of doubles in linear time, for the column statistics' sorted batches
// (docs/statistics.md, "Cost"): an LSD radix sort of their bit patterns, each turned into an
// unsigned key that orders as the double does (sign bit flipped for a positive value, every bit
// for a negative one), six passes of at most 11 bits, a pass skipped when every key shares its
// digit. TypedArray.prototype.sort compares element by element and costs several times more.

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
  const n = values.length;
  let ordered = 1;
  while (ordered < n && values[ordered - 1]! <= values[ordered]!) ordered++;
  // Already in order (a key column, a log's timestamps): nothing to do.
  if (ordered >= n) return;
  if (spare.length < n) spare = new Float64Array(Math.max(n, spare.length * 2));
  let from: Uint32Array = new Uint32Array(values.buffer, values.byteOffset, n * 2);
  let to: Uint32Array = new Uint32Array(spare.buffer, 0, n * 2);
  counts.fill(0);
  for (let i = 0; i < n; i++) {
    let high = from[i * 2 + HIGH]!;
    let low = from[i * 2 + 1 - HIGH]!;
    if (high >= 0x80000000) {
      high = ~high >>> 0;
      low = ~low >>> 0;
    } else high = (high | 0x80000000) >>> 0;
    from[i * 2 + HIGH] = high;
    from[i * 2 + 1 - HIGH] = low;
    counts[low & 0x7ff]!++;
    counts[BUCKETS + ((low >>> 11) & 0x7ff)]!++;
    counts[2 * BUCKETS + (low >>> 22)]!++;
    counts[3 * BUCKETS + (high & 0x7ff)]!++;
    counts[4 * BUCKETS + ((high >>> 11) & 0x7ff)]!++;
    counts[5 * BUCKETS + (high >>> 22)]!++;
  }
  for (let digit = 0; digit < DIGITS; digit++) {
    const base = digit * BUCKETS;
    const shift = SHIFTS[digit]!;
    const mask = WIDTHS[digit]!;
    const word = digit < 3 ? 1 - HIGH : HIGH;
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
  if (from.buffer !== values.buffer) new Uint32Array(values.buffer, values.byteOffset, n * 2).set(from);
  const words = new Uint32Array(values.buffer, values.byteOffset, n * 2);
  for (let i = 0; i < n; i++) {
    const high = words[i * 2 + HIGH]!;
    if (high >= 0x80000000) words[i * 2 + HIGH] = (high & 0x7fffffff) >>> 0;
    else {
      words[i * 2 + HIGH] = ~high >>> 0;
      words[i * 2 + 1 - HIGH] = ~words[i * 2 + 1 - HIGH]! >>> 0;
    }
  }
}
