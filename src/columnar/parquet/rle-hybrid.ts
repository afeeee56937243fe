// The RLE / bit-packing hybrid encoding: how Parquet stores definition levels and dictionary indices.
// Runs of 8 or more equal values become RLE runs; everything else is bit-packed in groups of 8.
// https://github.com/apache/parquet-format/blob/master/Encodings.md#run-length-encoding--bit-packing-hybrid-rle--3
import type { ByteBuffer } from "./byte-buffer.ts";

/** The bits needed for values up to `max` (at least 1, which every reader takes). */
export function bitWidth(max: number): number {
  let width = 1;
  while (width < 32 && max >= 2 ** width) width++;
  return width;
}

function rleRun(out: ByteBuffer, value: number, length: number, width: number): void {
  out.varint(length * 2);
  const bytes = (width + 7) >> 3;
  for (let b = 0; b < bytes; b++) out.u8((value >>> (8 * b)) & 0xff);
}

function packedRun(out: ByteBuffer, values: ArrayLike<number>, from: number, groups: number, count: number, width: number): void {
  out.varint(groups * 2 + 1);
  out.reserve(groups * width);
  const bytes = out.bytes;
  let at = out.length;
  let acc = 0;
  let bits = 0;
  const end = from + groups * 8;
  for (let i = from; i < end; i++) {
    const v = i < count ? values[i]! : 0;
    // `width` is at most 24 here (dictionaries are far smaller), so acc never passes 31 bits.
    acc |= v << bits;
    bits += width;
    while (bits >= 8) {
      bytes[at++] = acc & 0xff;
      acc >>>= 8;
      bits -= 8;
    }
  }
  out.length = at;
}

/** Appends `values[0..count)` to `out` in the hybrid encoding with `width` bits per value. */
export function encodeHybrid(out: ByteBuffer, values: ArrayLike<number>, count: number, width: number): void {
  let i = 0;
  let packedFrom = 0;
  let groups = 0;
  while (i < count) {
    const v = values[i]!;
    let run = 1;
    while (i + run < count && values[i + run] === v) run++;
    if (run >= 8) {
      if (groups > 0) packedRun(out, values, packedFrom, groups, count, width);
      groups = 0;
      rleRun(out, v, run, width);
      i += run;
    } else {
      if (groups === 0) packedFrom = i;
      groups++;
      i += 8;
    }
  }
  if (groups > 0) packedRun(out, values, packedFrom, groups, count, width);
}

/** Definition levels of a page (1 = present, 0 = null) with the 4-byte length prefix of DataPage v1. */
export function encodeLevels(out: ByteBuffer, levels: Uint8Array, count: number, nulls: number): void {
  const lengthAt = out.length;
  out.i32(0);
  if (nulls === 0) rleRun(out, 1, count, 1);
  else if (nulls === count) rleRun(out, 0, count, 1);
  else encodeHybrid(out, levels, count, 1);
  out.view.setInt32(lengthAt, out.length - lengthAt - 4, true);
}
