// Page headers: each page of a column chunk starts with a Thrift PageHeader saying its kind, sizes
// and encodings. DataPage v1 only, which every reader takes.
// https://github.com/apache/parquet-format/blob/master/src/main/thrift/parquet.thrift (PageHeader)
import { ByteBuffer } from "./byte-buffer.ts";
import { CompactWriter } from "./thrift-compact.ts";

/** parquet.thrift `Encoding`. */
export const ENCODING = { PLAIN: 0, RLE: 3, RLE_DICTIONARY: 8 } as const;
/** parquet.thrift `CompressionCodec`. */
export const CODEC_SNAPPY = 1;

const DATA_PAGE = 0;
const DICTIONARY_PAGE = 2;

/**
 * Where a header is written before it is copied out: one buffer for every page, as a buffer of
 * its own per page (a backing store and a DataView each) cost more than the header's writing.
 */
const scratch = new ByteBuffer(256);

function writer(): CompactWriter {
  scratch.reset();
  return new CompactWriter(scratch);
}

/** The header of a DataPage v1 holding `values` entries (nulls included), definition levels in RLE. */
export function dataPageHeader(uncompressed: number, compressed: number, values: number, encoding: number): Uint8Array {
  const w = writer();
  w.i32(1, DATA_PAGE).i32(2, uncompressed).i32(3, compressed);
  w.struct(5).i32(1, values).i32(2, encoding).i32(3, ENCODING.RLE).i32(4, ENCODING.RLE).end();
  return w.end().out.copy();
}

/** The header of a dictionary page of `values` PLAIN entries. */
export function dictionaryPageHeader(uncompressed: number, compressed: number, values: number): Uint8Array {
  const w = writer();
  w.i32(1, DICTIONARY_PAGE).i32(2, uncompressed).i32(3, compressed);
  w.struct(7).i32(1, values).i32(2, ENCODING.PLAIN).end();
  return w.end().out.copy();
}
