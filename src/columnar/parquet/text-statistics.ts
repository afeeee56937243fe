// Min/max of a text column chunk, bounded: a long value is cut to a prefix of at most
// TEXT_STATISTICS_BYTES (still a lower bound for min) and max's last code point is raised by one so
// it stays an upper bound, as Parquet allows for BYTE_ARRAY statistics. Text stays valid UTF-8.
// https://github.com/apache/parquet-format/blob/master/src/main/thrift/parquet.thrift (Statistics)
import { utf8 } from "./byte-buffer.ts";

export const TEXT_STATISTICS_BYTES = 64;

/** The code points of `text` whose UTF-8 fits `limit` bytes. */
function prefix(text: string, limit: number): number[] {
  const points: number[] = [];
  let bytes = 0;
  for (const char of text) {
    const point = char.codePointAt(0)!;
    const size = point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
    if (bytes + size > limit) break;
    bytes += size;
    points.push(point);
  }
  return points;
}

/** The least code-point string above every string that starts with `points`, or null if there is none. */
function above(points: number[]): string | null {
  const raised = [...points];
  while (raised.length > 0) {
    let last = raised.pop()! + 1;
    if (last === 0xd800) last = 0xe000;
    if (last <= 0x10ffff) return String.fromCodePoint(...raised, last);
  }
  return null;
}

/** Statistics bytes for a chunk whose least and greatest values (code point order) are `min` and `max`. */
export function textStatistics(min: string, max: string): { min: Uint8Array; max: Uint8Array } | null {
  const minBytes = utf8(min);
  const maxBytes = utf8(max);
  if (minBytes.length <= TEXT_STATISTICS_BYTES && maxBytes.length <= TEXT_STATISTICS_BYTES) return { min: minBytes, max: maxBytes };
  const low = minBytes.length <= TEXT_STATISTICS_BYTES ? minBytes : utf8(String.fromCodePoint(...prefix(min, TEXT_STATISTICS_BYTES)));
  if (maxBytes.length <= TEXT_STATISTICS_BYTES) return { min: low, max: maxBytes };
  const high = above(prefix(max, TEXT_STATISTICS_BYTES - 1));
  return high === null ? null : { min: low, max: utf8(high) };
}
