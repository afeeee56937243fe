// The 64-bit key of a text's UTF-8 bytes: what the column statistics count texts by (summary
// format 2, docs/statistics.md) and the Parquet dictionary looks text up by, so the encoder
// hashes a text cell once for both. In the csv room, below both.

/** The last key made, as two 32-bit lanes: [high, low]. Read right after the call that fills it. */
export const KEY = new Uint32Array(2);

/**
 * Hashes the UTF-8 bytes[start, start + length) into KEY (two lanes in the style of cyrb53, each
 * with its own multiplier, so the 64 bits collide only when both lanes do; four bytes a step, read
 * little-endian) and returns their length in Unicode code points (bytes that do not continue a
 * sequence).
 */
export function hashUtf8(bytes: Uint8Array, start: number, length: number): number {
  let h1 = 0xdeadbeef ^ length;
  let h2 = 0x41c6ce57;
  let continuing = 0;
  const end = start + length;
  let i = start;
  for (; i + 3 < end; i += 4) {
    // Four byte loads, not DataView.getInt32: in workerd that call is not inlined and boxes each
    // word past 2^30 as a heap number (docs/statistics.md, "Cost").
    const word = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    h1 = Math.imul(h1 ^ word, 2654435761);
    h2 = Math.imul(h2 ^ word, 1597334677);
    // A continuation byte is 10xxxxxx: bit 7 set, bit 6 clear; counted four bytes at once.
    const marks = word & ~(word << 1) & 0x80808080;
    if (marks !== 0) continuing += Math.imul(marks >>> 7, 0x01010101) >>> 24;
  }
  if (i < end) {
    let word = 0;
    for (let shift = 0; i < end; i++, shift += 8) {
      const b = bytes[i]!;
      word |= b << shift;
      if ((b & 0xc0) === 0x80) continuing++;
    }
    h1 = Math.imul(h1 ^ word, 2654435761);
    h2 = Math.imul(h2 ^ word, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  KEY[0] = h2;
  KEY[1] = h1;
  return length - continuing;
}
