// AssemblyScript source of src/columnar/parquet/snappy-kernel.wasm (`npm run build:kernel`;
// `npm test` checks the committed binary is this file's build). Snappy compression of Parquet
// pages, which took about a tenth of the twin's encoding in JavaScript (docs/performance.md,
// "The Parquet twin in workerd"). A port of the reference compressor's design: 64 KiB
// fragments, a hash table of 4-byte sequences, and the skip heuristic that makes incompressible
// input cheap; its output is the raw block format, byte for byte what the JavaScript port
// before it wrote (test/node/parquet.snappy.test.ts holds the two to each other).
// https://github.com/google/snappy/blob/main/format_description.txt
//
// Memory (laid out by snappy.ts): the hash table at 0 (1 << MAX_TABLE_BITS i32 entries, 64 KiB),
// the input at `input`, the output at `out`, with room for 32 + n + n / 6 bytes and 16 more
// (short literals are copied 16 bytes at a time, reading up to 15 bytes past a literal, within
// the input or the output after it). The kernel allocates nothing.

const FRAGMENT: u32 = 1 << 16;
const MAX_TABLE_BITS: u32 = 14;
/** The reference's input margin: the match finder stops this far from the end of a fragment. */
const MARGIN: u32 = 15;
const TABLE: usize = 0;

@inline function hashAt(p: usize, shift: u32): usize {
  return TABLE + (<usize>((load<u32>(p) * 0x1e35a7bd) >> shift) << 2);
}

function emitLiteral(from: usize, to: usize, op: usize): usize {
  const n = <u32>(to - from - 1);
  if (n < 60) {
    store<u8>(op++, n << 2);
  } else if (n < 0x100) {
    store<u8>(op, 60 << 2);
    store<u8>(op + 1, n);
    op += 2;
  } else if (n < 0x10000) {
    store<u8>(op, 61 << 2);
    store<u8>(op + 1, n & 0xff);
    store<u8>(op + 2, n >> 8);
    op += 3;
  } else {
    store<u8>(op, 62 << 2);
    store<u8>(op + 1, n & 0xff);
    store<u8>(op + 2, (n >> 8) & 0xff);
    store<u8>(op + 3, n >> 16);
    op += 4;
  }
  const length = to - from;
  // A short literal is copied as 16 bytes: the bytes past it are overwritten by what follows,
  // or lie in the slack after the output (see "Memory").
  if (length <= 16) v128.store(op, v128.load(from));
  else memory.copy(op, from, length);
  return op + length;
}

function emitCopyUpTo64(offset: u32, length: u32, op: usize): usize {
  if (length < 12 && offset < 2048) {
    store<u8>(op, 1 | ((length - 4) << 2) | ((offset >> 8) << 5));
    store<u8>(op + 1, offset & 0xff);
    return op + 2;
  }
  store<u8>(op, 2 | ((length - 1) << 2));
  store<u8>(op + 1, offset & 0xff);
  store<u8>(op + 2, offset >> 8);
  return op + 3;
}

function emitCopy(offset: u32, length: u32, op: usize): usize {
  let left = length;
  while (left >= 68) {
    op = emitCopyUpTo64(offset, 64, op);
    left -= 64;
  }
  if (left > 64) {
    op = emitCopyUpTo64(offset, 60, op);
    left -= 60;
  }
  return emitCopyUpTo64(offset, left, op);
}

/** One fragment, [start, end) of memory, compressed at `op`; returns the end of the output. */
function compressFragment(start: usize, end: usize, op: usize): usize {
  let nextEmit = start;
  if (end - start >= MARGIN) {
    let bits: u32 = 8;
    while (bits < MAX_TABLE_BITS && (<usize>1 << bits) < end - start) bits++;
    const shift = 32 - bits;
    // Every slot -1: no position seen yet in this fragment.
    memory.fill(TABLE, 0xff, <usize>4 << bits);
    const ipLimit = end - MARGIN;
    let ip = start + 1;
    let nextHash = hashAt(ip, shift);
    for (;;) {
      let skip: u32 = 32;
      let nextIp = ip;
      let candidate: i32;
      do {
        ip = nextIp;
        const slot = nextHash;
        nextIp = ip + (skip >> 5);
        skip++;
        if (nextIp > ipLimit) return finish(nextEmit, end, op);
        nextHash = hashAt(nextIp, shift);
        candidate = load<i32>(slot);
        store<i32>(slot, <i32>ip);
      } while (candidate < 0 || load<u32>(ip) != load<u32>(<usize>candidate));
      op = emitLiteral(nextEmit, ip, op);
      do {
        const base = ip;
        const from = <usize>candidate;
        let matched: usize = 4;
        // Eight bytes a step; the first that differs is the lowest set byte of their XOR.
        while (ip + matched + 8 <= end) {
          const diff = load<u64>(from + matched) ^ load<u64>(ip + matched);
          if (diff != 0) {
            matched += <usize>(ctz(diff) >> 3);
            break;
          }
          matched += 8;
        }
        if (ip + matched + 8 > end) while (ip + matched < end && load<u8>(from + matched) == load<u8>(ip + matched)) matched++;
        ip += matched;
        op = emitCopy(<u32>(base - from), <u32>matched, op);
        nextEmit = ip;
        if (ip >= ipLimit) return finish(nextEmit, end, op);
        store<i32>(hashAt(ip - 1, shift), <i32>(ip - 1));
        const slot = hashAt(ip, shift);
        candidate = load<i32>(slot);
        store<i32>(slot, <i32>ip);
      } while (candidate >= 0 && load<u32>(ip) == load<u32>(<usize>candidate));
      ip++;
      nextHash = hashAt(ip, shift);
    }
  }
  return finish(nextEmit, end, op);
}

@inline function finish(nextEmit: usize, end: usize, op: usize): usize {
  return nextEmit < end ? emitLiteral(nextEmit, end, op) : op;
}

/**
 * Compresses the `n` bytes at `input` as one raw Snappy block at `out`: the length as a varint,
 * then the elements. Returns the bytes written.
 */
export function compress(input: usize, n: u32, out: usize): u32 {
  let op = out;
  let v = n;
  while (v >= 0x80) {
    store<u8>(op++, (v & 0x7f) | 0x80);
    v >>= 7;
  }
  store<u8>(op++, v);
  const end = input + n;
  for (let start = input; start < end; start += FRAGMENT) op = compressFragment(start, min(end, start + FRAGMENT), op);
  return <u32>(op - out);
}
