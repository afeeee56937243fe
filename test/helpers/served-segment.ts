// Stored segments made in a test (parts compressed alone, as docs/storage-protocol.md lays them
// out), and reads of them served only as the reader asks, counting what was served: what tells
// whether a reader of a segment stays within a group of parts (src/storage/segment-inflate.ts).
import { INFLATE_GROUP_BYTES } from "../../src/storage/segment-inflate.ts";
import { compressSegment, concatBytes } from "../../src/wire/deflate-segment.ts";
import type { SegmentPart } from "../../src/wire/parted-segment.ts";
import { wrapBinding } from "./storage.ts";

/** `raw` cut at `cuts` into parts, each compressed alone, as a stored segment holds them. */
export function partedSegment(raw: Uint8Array, cuts: readonly number[], rowCounts: readonly number[] = []): { bytes: Uint8Array; parts: SegmentPart[] } {
  const edges = [0, ...cuts, raw.length];
  const parts: SegmentPart[] = [];
  const data: Uint8Array[] = [];
  let offset = 0;
  for (let i = 0; i + 1 < edges.length; i++) {
    const part = compressSegment(raw.subarray(edges[i], edges[i + 1]), 1);
    parts.push({ compressedOffset: offset, compressedBytes: part.compressedBytes, rawBytes: part.rawBytes, rowCount: rowCounts[i] ?? 0 });
    data.push(part.data);
    offset += part.compressedBytes;
  }
  return { bytes: concatBytes(data), parts };
}

/** A CSV (header first) stored in parts of about `partBytes`, each cut at a record end, with their data row counts. */
export function csvSegment(csv: string, partBytes: number): { raw: Uint8Array; bytes: Uint8Array; parts: SegmentPart[] } {
  const raw = new TextEncoder().encode(csv);
  const cuts: number[] = [];
  const rowCounts: number[] = [];
  let from = 0;
  while (from < raw.length) {
    const lineEnd = raw.indexOf(0x0a, Math.min(raw.length - 1, from + partBytes));
    const to = lineEnd < 0 ? raw.length : lineEnd + 1;
    rowCounts.push(raw.subarray(from, to).filter((b) => b === 0x0a).length - (from === 0 ? 1 : 0));
    if (to < raw.length) cuts.push(to);
    from = to;
  }
  return { raw, ...partedSegment(raw, cuts, rowCounts) };
}

/**
 * A byte stream serving `bytes` only as it is read, at most `chunk` a pull, counting what it
 * served; with `plain`, a stream of chunks that offers no BYOB reads (as some bodies are).
 */
export function served(bytes: Uint8Array, chunk: number, plain = false): { stream: ReadableStream<Uint8Array>; pulled: () => number; cancelled: () => boolean } {
  let at = 0;
  let cancelled = false;
  if (plain) {
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (at >= bytes.length) return controller.close();
          controller.enqueue(bytes.slice(at, at + chunk));
          at += chunk;
        },
        cancel() {
          cancelled = true;
        },
      },
      { highWaterMark: 0 },
    );
    return { stream, pulled: () => Math.min(at, bytes.length), cancelled: () => cancelled };
  }
  const source: UnderlyingByteSource = {
    type: "bytes",
    pull(controller) {
      if (at >= bytes.length) {
        controller.close();
        controller.byobRequest?.respond(0);
        return;
      }
      // Into the reader's own buffer when it offers one, so nothing is queued beyond what it asked for.
      const view = controller.byobRequest?.view;
      const take = Math.min(chunk, bytes.length - at, view?.byteLength ?? chunk);
      if (view) {
        new Uint8Array(view.buffer, view.byteOffset, take).set(bytes.subarray(at, at + take));
        controller.byobRequest!.respond(take);
      } else {
        controller.enqueue(bytes.slice(at, at + take));
      }
      at += take;
    },
  };
  source.cancel = () => {
    cancelled = true;
  };
  return { stream: new ReadableStream(source, { highWaterMark: 0 }) as ReadableStream<Uint8Array>, pulled: () => at, cancelled: () => cancelled };
}

export interface GatedRead {
  key: string;
  offset: number | null;
  length: number | null;
  pulled: () => number;
}

/**
 * The real local R2 binding, each object body served (`served`, 64 KiB a pull) only as the
 * worker reads it: `pulled()` is what the reads took from R2 so far.
 */
export function gatedR2(real: R2Bucket): { bucket: R2Bucket; reads: GatedRead[]; pulled: () => number } {
  const reads: GatedRead[] = [];
  const get = async (key: string, options?: R2GetOptions) => {
    const object = await real.get(key, options);
    if (!object || !("body" in object)) return object;
    const gate = served(new Uint8Array(await object.arrayBuffer()), 65_536);
    const range = options?.range as { offset?: number; length?: number } | undefined;
    reads.push({ key, offset: range?.offset ?? null, length: range?.length ?? null, pulled: gate.pulled });
    return new Proxy(object, {
      get(target, property) {
        if (property === "body") return gate.stream;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  };
  return { bucket: wrapBinding(real, { get }), reads, pulled: () => reads.reduce((n, r) => n + r.pulled(), 0) };
}

/**
 * The most of the object (from its start, or from part `first`'s) a reader of `parts` may have
 * read once it has been given `taken` inflated bytes: the group it is in, at most
 * INFLATE_GROUP_BYTES of whole parts past them, or the one larger part they reach into.
 */
export function readAheadBound(parts: readonly SegmentPart[], first = 0): (taken: number) => number {
  const wanted = parts.slice(first);
  const base = wanted[0]?.compressedOffset ?? 0;
  let raw = 0;
  const ends = wanted.map((p) => ({ start: raw, raw: (raw += p.rawBytes), compressed: p.compressedOffset + p.compressedBytes - base }));
  return (taken) => Math.max(ends[0]?.compressed ?? 0, ...ends.filter((e) => e.raw <= taken - 1 + INFLATE_GROUP_BYTES || e.start < taken).map((e) => e.compressed));
}
