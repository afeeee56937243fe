// The Snappy compressor the encoder ran in JavaScript before snappy-kernel.wasm, kept as the test
// oracle the kernel's output is held to byte for byte (test/node/parquet.snappy.test.ts): the
// reference compressor's design, 64 KiB fragments, a hash table of 4-byte sequences, the skip
// heuristic. https://github.com/google/snappy/blob/main/format_description.txt

const FRAGMENT = 1 << 16;
const MAX_TABLE_BITS = 14;
/** The reference's input margin: the match finder stops this far from the end of a fragment. */
const MARGIN = 15;

const table = new Int32Array(1 << MAX_TABLE_BITS);

let view: DataView = new DataView(new ArrayBuffer(0));

function emitLiteral(input: Uint8Array, from: number, to: number, out: Uint8Array, op: number): number {
  const n = to - from - 1;
  if (n < 60) out[op++] = n << 2;
  else if (n < 0x100) {
    out[op++] = 60 << 2;
    out[op++] = n;
  } else if (n < 0x10000) {
    out[op++] = 61 << 2;
    out[op++] = n & 0xff;
    out[op++] = n >>> 8;
  } else {
    out[op++] = 62 << 2;
    out[op++] = n & 0xff;
    out[op++] = (n >>> 8) & 0xff;
    out[op++] = n >>> 16;
  }
  if (to - from < 32) {
    for (let i = from; i < to; i++) out[op++] = input[i]!;
    return op;
  }
  out.set(input.subarray(from, to), op);
  return op + (to - from);
}

function emitCopyUpTo64(offset: number, length: number, out: Uint8Array, op: number): number {
  if (length < 12 && offset < 2048) {
    out[op++] = 1 | ((length - 4) << 2) | ((offset >>> 8) << 5);
    out[op++] = offset & 0xff;
  } else {
    out[op++] = 2 | ((length - 1) << 2);
    out[op++] = offset & 0xff;
    out[op++] = offset >>> 8;
  }
  return op;
}

function emitCopy(offset: number, length: number, out: Uint8Array, op: number): number {
  let left = length;
  while (left >= 68) {
    op = emitCopyUpTo64(offset, 64, out, op);
    left -= 64;
  }
  if (left > 64) {
    op = emitCopyUpTo64(offset, 60, out, op);
    left -= 60;
  }
  return emitCopyUpTo64(offset, left, out, op);
}

function compressFragment(input: Uint8Array, start: number, end: number, out: Uint8Array, opStart: number): number {
  const dv = view;
  const tbl = table;
  let op = opStart;
  let nextEmit = start;
  if (end - start >= MARGIN) {
    let bits = 8;
    while (bits < MAX_TABLE_BITS && 1 << bits < end - start) bits++;
    const shift = 32 - bits;
    tbl.fill(-1, 0, 1 << bits);
    const ipLimit = end - MARGIN;
    let ip = start + 1;
    let nextHash = Math.imul(dv.getUint32(ip, true), 0x1e35a7bd) >>> shift;
    outer: for (;;) {
      let skip = 32;
      let nextIp = ip;
      let candidate: number;
      do {
        ip = nextIp;
        const hash = nextHash;
        nextIp = ip + (skip++ >> 5);
        if (nextIp > ipLimit) break outer;
        nextHash = Math.imul(dv.getUint32(nextIp, true), 0x1e35a7bd) >>> shift;
        candidate = tbl[hash]!;
        tbl[hash] = ip;
      } while (candidate < 0 || dv.getUint32(ip, true) !== dv.getUint32(candidate, true));
      op = emitLiteral(input, nextEmit, ip, out, op);
      do {
        const base = ip;
        let matched = 4;
        while (ip + matched + 4 <= end && dv.getUint32(candidate + matched, true) === dv.getUint32(ip + matched, true)) matched += 4;
        while (ip + matched < end && input[candidate + matched] === input[ip + matched]) matched++;
        ip += matched;
        op = emitCopy(base - candidate, matched, out, op);
        nextEmit = ip;
        if (ip >= ipLimit) break outer;
        tbl[Math.imul(dv.getUint32(ip - 1, true), 0x1e35a7bd) >>> shift] = ip - 1;
        const hash = Math.imul(dv.getUint32(ip, true), 0x1e35a7bd) >>> shift;
        candidate = tbl[hash]!;
        tbl[hash] = ip;
      } while (candidate >= 0 && dv.getUint32(ip, true) === dv.getUint32(candidate, true));
      ip++;
      nextHash = Math.imul(dv.getUint32(ip, true), 0x1e35a7bd) >>> shift;
    }
  }
  if (nextEmit < end) op = emitLiteral(input, nextEmit, end, out, op);
  return op;
}

/** `input` compressed as one raw Snappy block: its length as a varint, then the elements. */
export function referenceSnappyCompress(input: Uint8Array): Uint8Array {
  const out = new Uint8Array(32 + input.length + Math.floor(input.length / 6));
  const n = input.length;
  let op = 0;
  let v = n;
  while (v >= 0x80) {
    out[op++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  out[op++] = v;
  view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  for (let start = 0; start < n; start += FRAGMENT) op = compressFragment(input, start, Math.min(n, start + FRAGMENT), out, op);
  return out.subarray(0, op);
}
