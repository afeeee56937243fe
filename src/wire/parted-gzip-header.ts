// The "parted gzip" upload format (docs/storage-protocol.md, "Upload format"): a single-member gzip
// whose DEFLATE stream is already cut into independently compressed parts, each part's lengths
// listed in one gzip extra subfield (RFC 1952 §2.3.1.1), as dictzip and BGZF list their blocks.
// This module writes and reads that header; it is pure so the client and the server share it.
import { crc32 } from "./crc32.ts";

/** Subfield id `SI1 SI2` = "PS" (pubset); not registered with the RFC 1952 registry. */
export const PARTS_SUBFIELD_ID: readonly [number, number] = [0x50, 0x53];
export const PARTS_FORMAT_VERSION = 1;
/** Bytes of one index entry: compressed length, raw length, both u32 little-endian. */
export const PART_ENTRY_BYTES = 8;
/** Entries that fit one subfield (LEN ≤ 65535 − 4, XLEN's own bound, less its 4-byte head). */
export const MAX_PARTS = Math.floor((0xffff - 4 - 1) / PART_ENTRY_BYTES);
/** Uncompressed bytes after which a segment starts a new part (at a record end): client and server alike. */
export const PART_RAW_BYTES = 1024 * 1024;
/** Raw bytes one part may hold: the server inflates a part into one buffer. */
export const MAX_PART_RAW_BYTES = 16 * 1024 * 1024;
/** A header longer than this is not read as the parted format (a long FNAME or FCOMMENT). */
export const MAX_HEADER_BYTES = 128 * 1024;

export interface PartLengths {
  compressedBytes: number;
  rawBytes: number;
}

const FHCRC = 2;
const FEXTRA = 4;
const FNAME = 8;
const FCOMMENT = 16;

/**
 * The 10-byte fixed header plus FEXTRA holding the part index: MTIME 0, XFL 0, OS 255, no
 * name, so the same content always gives the same bytes. Throws past MAX_PARTS entries or a
 * length that does not fit 32 bits (producers merge adjacent parts first: see mergeParts).
 */
export function partedGzipHeader(parts: readonly PartLengths[]): Uint8Array {
  if (parts.length === 0 || parts.length > MAX_PARTS) throw new RangeError(`a parted gzip lists 1..${MAX_PARTS} parts, got ${parts.length}`);
  const len = 1 + parts.length * PART_ENTRY_BYTES;
  const out = new Uint8Array(10 + 2 + 4 + len);
  const view = new DataView(out.buffer);
  out.set([0x1f, 0x8b, 8, FEXTRA, 0, 0, 0, 0, 0, 0xff]);
  view.setUint16(10, 4 + len, true);
  out.set(PARTS_SUBFIELD_ID, 12);
  view.setUint16(14, len, true);
  out[16] = PARTS_FORMAT_VERSION;
  parts.forEach((part, i) => {
    for (const n of [part.compressedBytes, part.rawBytes]) {
      if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new RangeError(`part length ${n} does not fit 32 bits`);
    }
    view.setUint32(17 + i * PART_ENTRY_BYTES, part.compressedBytes, true);
    view.setUint32(21 + i * PART_ENTRY_BYTES, part.rawBytes, true);
  });
  return out;
}

/**
 * Adjacent parts joined two by two until at most `max` remain: two parts that each inflate
 * alone and end in a sync flush are together one such part.
 */
export function mergeParts(parts: readonly PartLengths[], max = MAX_PARTS): PartLengths[] {
  let list = [...parts];
  while (list.length > max) {
    const merged: PartLengths[] = [];
    for (let i = 0; i < list.length; i += 2) {
      const a = list[i] as PartLengths;
      const b = list[i + 1];
      merged.push(b ? { compressedBytes: a.compressedBytes + b.compressedBytes, rawBytes: a.rawBytes + b.rawBytes } : a);
    }
    list = merged;
  }
  return list;
}

export type HeaderRead =
  | { status: "more" }
  | { status: "not-parted" }
  | { status: "parted"; headerBytes: number; parts: PartLengths[] };

/**
 * Reads a gzip member header (RFC 1952 §2.3) from the first bytes of an upload. `more`: not
 * enough bytes yet; `not-parted`: any other gzip (or not gzip at all), for the recompression
 * path to handle; `parted`: the header's length and the part index.
 */
export function readPartedGzipHeader(bytes: Uint8Array): HeaderRead {
  if (bytes.length < 10) return { status: "more" };
  const flags = bytes[3] as number;
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b || bytes[2] !== 8 || (flags & 0xe0) !== 0 || (flags & FEXTRA) === 0) return { status: "not-parted" };
  const need = (n: number): HeaderRead | null => (bytes.length >= n ? null : n > MAX_HEADER_BYTES ? { status: "not-parted" } : { status: "more" });
  let at = 10;
  const short = need(at + 2);
  if (short) return short;
  const xlen = (bytes[at] as number) | ((bytes[at + 1] as number) << 8);
  at += 2;
  const extraEnd = at + xlen;
  const shortExtra = need(extraEnd);
  if (shortExtra) return shortExtra;
  let parts: PartLengths[] | null = null;
  while (at < extraEnd) {
    if (at + 4 > extraEnd) return { status: "not-parted" };
    const len = (bytes[at + 2] as number) | ((bytes[at + 3] as number) << 8);
    if (at + 4 + len > extraEnd) return { status: "not-parted" };
    if (bytes[at] === PARTS_SUBFIELD_ID[0] && bytes[at + 1] === PARTS_SUBFIELD_ID[1]) {
      if (parts !== null) return { status: "not-parted" };
      parts = readIndex(bytes.subarray(at + 4, at + 4 + len));
      if (parts === null) return { status: "not-parted" };
    }
    at += 4 + len;
  }
  if (parts === null) return { status: "not-parted" };
  for (const flag of [FNAME, FCOMMENT]) {
    if ((flags & flag) === 0) continue;
    const zero = bytes.indexOf(0, at);
    if (zero < 0) return bytes.length >= MAX_HEADER_BYTES ? { status: "not-parted" } : { status: "more" };
    at = zero + 1;
  }
  if (flags & FHCRC) {
    const shortCrc = need(at + 2);
    if (shortCrc) return shortCrc;
    const expected = (bytes[at] as number) | ((bytes[at + 1] as number) << 8);
    if ((crc32(bytes.subarray(0, at)) & 0xffff) !== expected) return { status: "not-parted" };
    at += 2;
  }
  return { status: "parted", headerBytes: at, parts };
}

function readIndex(payload: Uint8Array): PartLengths[] | null {
  if (payload[0] !== PARTS_FORMAT_VERSION || (payload.length - 1) % PART_ENTRY_BYTES !== 0 || payload.length === 1) return null;
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const parts: PartLengths[] = [];
  for (let at = 1; at < payload.length; at += PART_ENTRY_BYTES) {
    parts.push({ compressedBytes: view.getUint32(at, true), rawBytes: view.getUint32(at + 4, true) });
  }
  return parts;
}
