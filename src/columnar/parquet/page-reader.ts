// Reads a page header (Thrift compact protocol, read side): the few PageHeader fields the query
// scan needs to walk a column chunk our encoder wrote, every other field skipped by its type.
// https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md
// https://github.com/apache/parquet-format/blob/master/src/main/thrift/parquet.thrift (PageHeader)

export const PAGE_DATA = 0;
export const PAGE_DICTIONARY = 2;

export interface PageHeader {
  type: number;
  uncompressed: number;
  compressed: number;
  /** Entries of the page: rows (nulls included) for a data page, entries for a dictionary page. */
  values: number;
  encoding: number;
  /** Bytes of the header itself. */
  headerBytes: number;
}

class Reader {
  at: number;
  readonly bytes: Uint8Array;

  constructor(bytes: Uint8Array, at: number) {
    this.bytes = bytes;
    this.at = at;
  }

  byte(): number {
    if (this.at >= this.bytes.length) throw new Error("page header: truncated");
    return this.bytes[this.at++]!;
  }

  varint(): number {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = this.byte();
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
      if (shift > 63) throw new Error("page header: varint too long");
    }
  }

  zigzag(): number {
    const v = this.varint();
    return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
  }

  skip(type: number): void {
    switch (type) {
      case 1:
      case 2:
        return;
      case 3:
        this.at++;
        return;
      case 4:
      case 5:
      case 6:
        this.varint();
        return;
      case 7:
        this.at += 8;
        return;
      case 8:
        this.at += this.varint();
        return;
      case 9:
      case 10: {
        const head = this.byte();
        const size = head >>> 4 === 15 ? this.varint() : head >>> 4;
        const element = head & 15;
        for (let i = 0; i < size; i++) this.skip(element === 1 || element === 2 ? 3 : element);
        return;
      }
      case 12:
        this.struct(() => false);
        return;
      default:
        throw new Error(`page header: unknown type ${type}`);
    }
  }

  /** Walks a struct's fields; `field` reads the ones it knows and returns true, others are skipped. */
  struct(field: (id: number, type: number) => boolean): void {
    let last = 0;
    for (;;) {
      const head = this.byte();
      if (head === 0) return;
      const delta = head >>> 4;
      const type = head & 15;
      const id = delta === 0 ? this.zigzag() : last + delta;
      last = id;
      if (!field(id, type)) this.skip(type);
    }
  }
}

/** The page header starting at `at` of `bytes`. */
export function readPageHeader(bytes: Uint8Array, at: number): PageHeader {
  const r = new Reader(bytes, at);
  const header: PageHeader = { type: -1, uncompressed: 0, compressed: 0, values: 0, encoding: 0, headerBytes: 0 };
  r.struct((id, type) => {
    if (id === 1 && type === 5) header.type = r.zigzag();
    else if (id === 2 && type === 5) header.uncompressed = r.zigzag();
    else if (id === 3 && type === 5) header.compressed = r.zigzag();
    else if ((id === 5 || id === 7) && type === 12) {
      // DataPageHeader (5) and DictionaryPageHeader (7) both open with num_values (1) and encoding (2).
      r.struct((inner, innerType) => {
        if (inner === 1 && innerType === 5) header.values = r.zigzag();
        else if (inner === 2 && innerType === 5) header.encoding = r.zigzag();
        else return false;
        return true;
      });
    } else return false;
    return true;
  });
  header.headerBytes = r.at - at;
  return header;
}
