// Snappy decompression (raw block format), the inverse of snappy.ts, so the query scan reads the
// pages our own encoder wrote. A preamble varint gives the uncompressed length; then literals and
// back-references (copies with a 1-, 2- or 4-byte offset).
// https://github.com/google/snappy/blob/main/format_description.txt

function corrupt(what: string): Error {
  return new Error(`snappy: ${what}`);
}

/** The uncompressed bytes of one raw Snappy block; throws on malformed input. */
export function snappyDecompress(input: Uint8Array): Uint8Array {
  let ip = 0;
  let length = 0;
  for (let shift = 0; ; shift += 7) {
    if (ip >= input.length || shift > 28) throw corrupt("bad length preamble");
    const byte = input[ip++]!;
    length += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
  }
  const out = new Uint8Array(length);
  let op = 0;
  while (ip < input.length) {
    const tag = input[ip++]!;
    const type = tag & 3;
    if (type === 0) {
      let n = tag >>> 2;
      if (n >= 60) {
        const bytes = n - 59;
        n = 0;
        for (let i = 0; i < bytes; i++) n |= input[ip + i]! << (8 * i);
        n >>>= 0;
        ip += bytes;
      }
      n += 1;
      if (ip + n > input.length || op + n > length) throw corrupt("literal past the end");
      if (n < 32) for (let i = 0; i < n; i++) out[op + i] = input[ip + i]!;
      else out.set(input.subarray(ip, ip + n), op);
      ip += n;
      op += n;
      continue;
    }
    let n: number;
    let offset: number;
    if (type === 1) {
      n = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | input[ip++]!;
    } else if (type === 2) {
      n = (tag >>> 2) + 1;
      offset = input[ip]! | (input[ip + 1]! << 8);
      ip += 2;
    } else {
      n = (tag >>> 2) + 1;
      offset = (input[ip]! | (input[ip + 1]! << 8) | (input[ip + 2]! << 16) | (input[ip + 3]! << 24)) >>> 0;
      ip += 4;
    }
    if (offset === 0 || offset > op || op + n > length) throw corrupt("copy out of range");
    if (offset >= n && n >= 32) out.copyWithin(op, op - offset, op - offset + n);
    else for (let i = 0; i < n; i++) out[op + i] = out[op - offset + i]!;
    op += n;
  }
  if (op !== length) throw corrupt(`expected ${length} bytes, got ${op}`);
  return out;
}
