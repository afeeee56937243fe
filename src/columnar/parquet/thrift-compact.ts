// The Thrift compact protocol, write side only: Parquet's page headers, FileMetaData and page
// indexes are Thrift structs in this encoding. Only the types those structs use are here.
// https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md
import { ByteBuffer, utf8 } from "./byte-buffer.ts";

export const T_TRUE = 1;
export const T_FALSE = 2;
export const T_I16 = 4;
export const T_I32 = 5;
export const T_I64 = 6;
export const T_BINARY = 8;
export const T_LIST = 9;
export const T_STRUCT = 12;

/** Writes one struct at a time into a ByteBuffer; nested structs keep their own last field id. */
export class CompactWriter {
  readonly out: ByteBuffer;
  private last = 0;
  private readonly stack: number[] = [];

  constructor(out = new ByteBuffer(256)) {
    this.out = out;
  }

  private header(id: number, type: number): void {
    const delta = id - this.last;
    if (delta > 0 && delta <= 15) this.out.u8((delta << 4) | type);
    else {
      this.out.u8(type);
      this.zigzag(id);
    }
    this.last = id;
  }

  private zigzag(value: number): void {
    this.out.varint(value >= 0 ? value * 2 : -value * 2 - 1);
  }

  i32(id: number, value: number): this {
    this.header(id, T_I32);
    this.zigzag(value);
    return this;
  }

  /** An i64 field; values past 2^53 do not occur in the structs we write (sizes, offsets, counts). */
  i64(id: number, value: number): this {
    this.header(id, T_I64);
    this.zigzag(value);
    return this;
  }

  i16(id: number, value: number): this {
    this.header(id, T_I16);
    this.zigzag(value);
    return this;
  }

  bool(id: number, value: boolean): this {
    this.header(id, value ? T_TRUE : T_FALSE);
    return this;
  }

  binary(id: number, value: Uint8Array): this {
    this.header(id, T_BINARY);
    this.out.varint(value.length);
    this.out.write(value);
    return this;
  }

  string(id: number, value: string): this {
    return this.binary(id, utf8(value));
  }

  /** Opens a nested struct field; close it with end(). */
  struct(id: number): this {
    this.header(id, T_STRUCT);
    this.stack.push(this.last);
    this.last = 0;
    return this;
  }

  /** Ends the struct being written (the outermost one too). */
  end(): this {
    this.out.u8(0);
    this.last = this.stack.pop() ?? 0;
    return this;
  }

  /** A list field: its header, then `each` writes every element with the element methods below. */
  list(id: number, elementType: number, size: number): this {
    this.header(id, T_LIST);
    if (size < 15) this.out.u8((size << 4) | elementType);
    else {
      this.out.u8(0xf0 | elementType);
      this.out.varint(size);
    }
    return this;
  }

  /** A struct element of a list: close it with end(). */
  element(): this {
    this.stack.push(this.last);
    this.last = 0;
    return this;
  }

  i32Element(value: number): this {
    this.zigzag(value);
    return this;
  }

  i64Element(value: number): this {
    this.zigzag(value);
    return this;
  }

  binaryElement(value: Uint8Array): this {
    this.out.varint(value.length);
    this.out.write(value);
    return this;
  }

  /** A bool element of a list: one byte, 1 for true and 2 for false. */
  boolElement(value: boolean): this {
    this.out.u8(value ? T_TRUE : T_FALSE);
    return this;
  }
}
