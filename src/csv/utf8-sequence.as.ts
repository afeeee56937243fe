// AssemblyScript, compiled into both kernels that check UTF-8 (record-kernel.as.ts at ingest,
// cell-kernel.as.ts in the Parquet build), so the check has one source. It decides as the
// scanner's Utf8Checker and TextDecoder's fatal mode do: the well-formed sequences of RFC 3629 §4.

/** utf8Sequence: the bytes are not well-formed UTF-8. */
export const UTF8_INVALID = -1;
/** utf8Sequence: `end` comes before the sequence is complete (its bytes so far are well formed). */
export const UTF8_CUT = -2;

/**
 * The UTF-8 sequence whose lead byte, >= 0x80, is at `q`: the offset after it, UTF8_INVALID or
 * UTF8_CUT. Its length is the offset minus `q`: a four-byte sequence is two UTF-16 code units,
 * the others one.
 */
@inline export function utf8Sequence(q: i32, end: i32): i32 {
  const b = <i32>load<u8>(q);
  let need = 0;
  let lo = 0x80;
  let hi = 0xbf;
  if (b < 0xc2) return UTF8_INVALID;
  if (b < 0xe0) {
    need = 1;
  } else if (b < 0xf0) {
    need = 2;
    if (b == 0xe0) lo = 0xa0;
    else if (b == 0xed) hi = 0x9f;
  } else if (b < 0xf5) {
    need = 3;
    if (b == 0xf0) lo = 0x90;
    else if (b == 0xf4) hi = 0x8f;
  } else {
    return UTF8_INVALID;
  }
  q++;
  while (need > 0) {
    if (q >= end) return UTF8_CUT;
    const c = <i32>load<u8>(q);
    if (c < lo || c > hi) return UTF8_INVALID;
    lo = 0x80;
    hi = 0xbf;
    need--;
    q++;
  }
  return q;
}
