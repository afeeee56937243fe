// The byte form of a stored summary: a growable writer and a bounds-checked reader of unsigned
// varints, doubles, 32-bit words and UTF-8 text, so every sketch serialises itself compactly.

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export class ByteWriter {
  private bytes = new Uint8Array(256);
  private view = new DataView(this.bytes.buffer);
  private length = 0;

  private room(extra: number): void {
    if (this.length + extra <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
    this.view = new DataView(next.buffer);
  }

  u8(value: number): void {
    this.room(1);
    this.bytes[this.length++] = value;
  }

  /** A non-negative integer up to 2^53, seven bits a byte. */
  varuint(value: number): void {
    this.room(8);
    let rest = value;
    while (rest >= 0x80) {
      this.bytes[this.length++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.bytes[this.length++] = rest;
  }

  f64(value: number): void {
    this.room(8);
    this.view.setFloat64(this.length, value, true);
    this.length += 8;
  }

  u32(value: number): void {
    this.room(4);
    this.view.setUint32(this.length, value, true);
    this.length += 4;
  }

  /**
   * Appends `length` bytes for the caller to fill in place of as many calls: the buffer to write
   * them into, from `at`, valid until the next call.
   */
  claim(length: number): { bytes: Uint8Array; at: number } {
    this.room(length);
    const at = this.length;
    this.length += length;
    return { bytes: this.bytes, at };
  }

  raw(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** Text already UTF-8 (and well-formed: the caller vouches), as text() writes it: its length, then bytes[start, start + length). */
  utf8(bytes: Uint8Array, start: number, length: number): void {
    this.varuint(length);
    this.room(length);
    const out = this.bytes;
    const at = this.length;
    for (let i = 0; i < length; i++) out[at + i] = bytes[start + i]!;
    this.length = at + length;
  }

  text(value: string): void {
    const utf8 = encoder.encode(value);
    this.varuint(utf8.length);
    this.raw(utf8);
  }

  finish(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

export class ByteReader {
  private offset = 0;
  private readonly bytes: Uint8Array;
  private readonly view: DataView;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private need(count: number): void {
    if (this.offset + count > this.bytes.length) throw new RangeError("statistics summary is truncated");
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.offset++]!;
  }

  varuint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = this.u8();
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
      if (scale > 2 ** 56) throw new RangeError("statistics summary holds a malformed number");
    }
  }

  f64(): number {
    this.need(8);
    const value = this.view.getFloat64(this.offset, true);
    this.offset += 8;
    return value;
  }

  u32(): number {
    this.need(4);
    const value = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return value;
  }

  raw(count: number): Uint8Array {
    this.need(count);
    const out = this.bytes.slice(this.offset, this.offset + count);
    this.offset += count;
    return out;
  }

  text(): string {
    return decoder.decode(this.raw(this.varuint()));
  }

  /** Whether every byte was read: a summary with bytes left over is refused. */
  get done(): boolean {
    return this.offset === this.bytes.length;
  }
}
