// CRC-32 of the gzip trailer (RFC 1952 §8), computed over every uploaded byte, so it is
// table-driven with slicing-by-8. crc32Combine lets an append continue its parent's CRC
// without rereading the parent (the GF(2) technique of zlib's crc32_combine).

/** Reflected form of the CRC-32 polynomial x^32 + x^26 + … + 1 (RFC 1952 §8). */
const POLY = 0xedb88320;

/** Eight 256-entry tables: TABLES[k * 256 + b] is the CRC of byte b followed by k zero bytes. */
const TABLES = buildTables();

function buildTables(): Uint32Array {
  const t = new Uint32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
    t[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n]!;
    for (let k = 1; k < 8; k++) {
      c = t[c & 0xff]! ^ (c >>> 8);
      t[k * 256 + n] = c;
    }
  }
  return t;
}

/**
 * Continues a CRC-32 over `bytes`; start from 0. Streamable:
 * `crc32Update(crc32Update(0, a), b) === crc32Update(0, a ‖ b)`. Returns an unsigned 32-bit number.
 */
export function crc32Update(crc: number, bytes: Uint8Array): number {
  const t = TABLES;
  let c = ~crc;
  let i = 0;
  const n = bytes.length;
  const end8 = n - (n % 8);
  // Indexes below are in range by construction (bytes < 256, i < end8 ≤ n), hence the `!`.
  for (; i < end8; i += 8) {
    const lo = c ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
    c =
      t[7 * 256 + (lo & 0xff)]! ^
      t[6 * 256 + ((lo >>> 8) & 0xff)]! ^
      t[5 * 256 + ((lo >>> 16) & 0xff)]! ^
      t[4 * 256 + (lo >>> 24)]! ^
      t[3 * 256 + bytes[i + 4]!]! ^
      t[2 * 256 + bytes[i + 5]!]! ^
      t[256 + bytes[i + 6]!]! ^
      t[bytes[i + 7]!]!;
  }
  for (; i < n; i++) c = t[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** The CRC-32 of `bytes` in one call. */
export function crc32(bytes: Uint8Array): number {
  return crc32Update(0, bytes);
}

/**
 * Product a·b modulo the CRC polynomial, both in the reflected representation where
 * bit 31 is x^0 (zlib's multmodp).
 */
function multModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/**
 * X2N[k] = x^(2^k) mod P. Lengths go up to 2^53 bytes = 2^56 bits, so 57 entries are built
 * by repeated squaring rather than relying on the sequence's period.
 */
const X2N = buildX2N(57);

function buildX2N(count: number): number[] {
  const table: number[] = [];
  let p = 0x40000000; // x^1
  for (let k = 0; k < count; k++) {
    table.push(p);
    p = multModP(p, p);
  }
  return table;
}

/** x^(8·bytes) mod P: the operator that shifts a CRC over `bytes` zero bytes. */
function zeroBytesOperator(bytes: number): number {
  let p = 0x80000000; // x^0
  let k = 3; // one byte is 2^3 bits
  let n = bytes;
  while (n > 0) {
    if (n % 2 === 1) p = multModP(X2N[k]!, p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}

/**
 * CRC-32 of A ‖ B from crc(A), crc(B) and B's length in bytes (an integer up to 2^53 − 1).
 * Runs in O(log lengthB) without touching the bytes.
 */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (!Number.isSafeInteger(lengthB) || lengthB < 0) {
    throw new RangeError(`crc32Combine: lengthB must be a non-negative safe integer, got ${lengthB}`);
  }
  return (multModP(zeroBytesOperator(lengthB), crcA >>> 0) ^ crcB) >>> 0;
}
