// Incremental UTF-8 well-formedness check (RFC 3629 §4; Unicode Table 3-7): validates
// multi-byte sequences without decoding, and carries a sequence split across chunks.

/** Well-formedness state of one UTF-8 stream; only bytes >= 0x80 are ever handed to it. */
export class Utf8Checker {
  /** Continuation bytes still expected by the sequence in progress (0 when none). */
  need = 0;
  private lo = 0x80;
  private hi = 0xbf;

  /**
   * Checks the sequence whose lead byte is `buf[i]` (>= 0x80). Returns the index after it,
   * `end` when it continues in the next chunk, or -1 when it is ill-formed (stray
   * continuation, overlong form, surrogate, or beyond U+10FFFF).
   */
  sequence(buf: Uint8Array, i: number, end: number): number {
    const b = buf[i]!;
    if (b < 0xc2) return -1;
    if (b < 0xe0) {
      this.need = 1;
    } else if (b < 0xf0) {
      this.need = 2;
      if (b === 0xe0) this.lo = 0xa0;
      else if (b === 0xed) this.hi = 0x9f;
    } else if (b < 0xf5) {
      this.need = 3;
      if (b === 0xf0) this.lo = 0x90;
      else if (b === 0xf4) this.hi = 0x8f;
    } else {
      return -1;
    }
    return this.resume(buf, i + 1, end);
  }

  /** Consumes the continuation bytes still expected from `buf[i]` on; same results as `sequence`. */
  resume(buf: Uint8Array, i: number, end: number): number {
    while (this.need > 0) {
      if (i === end) return end;
      const c = buf[i]!;
      if (c < this.lo || c > this.hi) return -1;
      this.lo = 0x80;
      this.hi = 0xbf;
      this.need--;
      i++;
    }
    return i;
  }
}
