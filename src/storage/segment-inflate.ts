// Reads one stored segment back as its uncompressed bytes, without touching any other segment
// (docs/storage-protocol.md). A segment is raw DEFLATE ended by a sync flush with no final block; followed by
// the empty final block `03 00` (RFC 1951 §3.2.3, §3.2.6) it is a complete DEFLATE stream.
import type { SegmentPart } from "../wire/parted-segment.ts";

const EMPTY_FINAL_BLOCK = Uint8Array.of(0x03, 0x00);

/**
 * The segment's content, inflated by the platform's DecompressionStream as it streams. The
 * body is piped into it natively, the final block written after: a JavaScript stage between
 * them cost a turn per R2 chunk, about half the reading (docs/performance.md, "The Parquet twin
 * in workerd"). The inflate runs ahead of a slow reader as far as R2 delivers; inflateParts
 * does not, so every reader of stored content reads through it instead, and this stays for a
 * segment inflated whole at once (tests, npm run bench:inflate).
 */
export function inflateSegment(compressed: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const inflate = new DecompressionStream("deflate-raw");
  compressed
    .pipeTo(inflate.writable, { preventClose: true })
    .then(async () => {
      const writer = inflate.writable.getWriter();
      await writer.write(EMPTY_FINAL_BLOCK.slice());
      await writer.close();
    })
    .catch(() => {
      // A failed body aborts the inflate (pipeTo), a failed inflate errors its readable: the reader sees either.
    });
  return inflate.readable;
}

/** Raw bytes of consecutive parts inflated at once by inflateParts (one part alone may be more). */
export const INFLATE_GROUP_BYTES = 1024 * 1024;

interface PartGroup {
  compressedBytes: number;
  rawBytes: number;
}

/** Consecutive parts joined while they inflate to at most `budget` bytes; checks they tile the object. */
function partGroups(parts: readonly SegmentPart[], budget: number): PartGroup[] {
  const groups: PartGroup[] = [];
  let offset = 0;
  for (const part of parts) {
    if (part.compressedOffset !== offset) throw new Error(`segment part at ${part.compressedOffset}, expected at ${offset}`);
    offset += part.compressedBytes;
    const last = groups.at(-1);
    if (last && last.rawBytes + part.rawBytes <= budget) {
      last.compressedBytes += part.compressedBytes;
      last.rawBytes += part.rawBytes;
    } else {
      groups.push({ compressedBytes: part.compressedBytes, rawBytes: part.rawBytes });
    }
  }
  return groups;
}

/** Reads exactly `into.length` bytes at a time: natively gathered where the stream offers BYOB reads, else copied. */
interface ExactReader {
  /** `into` filled (a view of the same or a new buffer), or fewer bytes when the stream ends. */
  read(into: Uint8Array): Promise<Uint8Array>;
  cancel(): Promise<void>;
}

function exactReader(stream: ReadableStream<Uint8Array>): ExactReader {
  let byob: ReadableStreamBYOBReader | null = null;
  try {
    byob = stream.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream (some bodies are not): read its chunks and copy them.
  }
  if (byob !== null) {
    const reader = byob;
    return {
      async read(into) {
        const { value } = await reader.readAtLeast(into.length, into);
        return value ?? into.subarray(0, 0);
      },
      cancel: () => reader.cancel(),
    };
  }
  const reader = stream.getReader();
  let held: Uint8Array = new Uint8Array(0);
  return {
    async read(into) {
      let filled = 0;
      for (;;) {
        const take = Math.min(held.length, into.length - filled);
        into.set(held.subarray(0, take), filled);
        held = held.subarray(take);
        filled += take;
        if (filled === into.length) return into;
        const { done, value } = await reader.read();
        if (done) return into.subarray(0, filled);
        held = value;
      }
    },
    cancel: () => reader.cancel(),
  };
}

/**
 * The segment's content, `parts` (its part list: each inflates alone, docs/storage-protocol.md)
 * from `compressed` (the whole object), in views of `gather` bytes but the last, all of one buffer
 * reused for each: a view is valid until the next is asked for.
 *
 * The platform's inflate has no backpressure: fed a whole segment as it streams from R2, it
 * inflates all of it ahead of a slower reader and holds it (docs/performance.md, "The Parquet
 * twin in workerd"). Here consecutive parts up to INFLATE_GROUP_BYTES are read from R2 at once (one
 * BYOB read where the body offers it), written to a DecompressionStream of their own with the final block, and their
 * output drained before the next group is read; so at most one group (or one larger part) is
 * held, compressed and inflated, beside the views. A group that inflates to other than its
 * parts' raw bytes, or an object shorter than its parts, fails the read.
 */
export async function* inflateParts(compressed: ReadableStream<Uint8Array>, parts: readonly SegmentPart[], gather: number): AsyncGenerator<Uint8Array> {
  const groups = partGroups(parts, INFLATE_GROUP_BYTES);
  const source = exactReader(compressed);
  let input: Uint8Array = new Uint8Array(Math.max(1, ...groups.map((g) => g.compressedBytes)));
  let output = new Uint8Array(gather);
  let filled = 0;
  try {
    for (const group of groups) {
      const bytes = await source.read(input.subarray(0, group.compressedBytes));
      if (bytes.length < group.compressedBytes) throw new Error("segment object shorter than its parts");
      input = new Uint8Array(bytes.buffer);
      const inflate = new DecompressionStream("deflate-raw");
      const writer = inflate.writable.getWriter();
      const written = Promise.all([writer.write(bytes), writer.write(EMPTY_FINAL_BLOCK.slice()), writer.close()]);
      written.catch(() => {});
      const reader = inflate.readable.getReader({ mode: "byob" });
      let inflated = 0;
      for (;;) {
        const { done, value } = await reader.readAtLeast(gather - filled, output.subarray(filled));
        if (value === undefined) throw new Error("segment inflate cancelled");
        output = new Uint8Array(value.buffer);
        filled += value.length;
        inflated += value.length;
        if (inflated > group.rawBytes) throw new Error(`segment part inflates to more than its ${group.rawBytes} bytes`);
        if (filled === gather) {
          yield output;
          filled = 0;
        }
        if (done) break;
      }
      await written;
      if (inflated !== group.rawBytes) throw new Error(`segment part inflates to ${inflated} bytes, not ${group.rawBytes}`);
    }
    if (filled > 0) yield output.subarray(0, filled);
  } finally {
    await source.cancel().catch(() => {});
  }
}

/** Opens bytes [offset, offset + length) of one stored segment object. */
export type OpenSegmentRange = (range: { offset: number; length: number }) => Promise<ReadableStream<Uint8Array>>;

/**
 * The content of parts [first, end) of a segment whose part list is `parts`: one read of just
 * their compressed bytes, inflated group by group as inflateParts does, so a reader slower than
 * R2 has at most one group inflated ahead of it. Every reader of stored CSV bytes reads through
 * here or inflateParts (docs/storage-protocol.md).
 */
export async function* inflatePartRange(
  open: OpenSegmentRange,
  parts: readonly SegmentPart[],
  first: number,
  end: number,
  gather: number,
): AsyncGenerator<Uint8Array> {
  const wanted = parts.slice(first, end);
  const start = wanted[0];
  if (start === undefined) return;
  const base = start.compressedOffset;
  const length = wanted.reduce((n, p) => n + p.compressedBytes, 0);
  const rebased = wanted.map((p) => ({ ...p, compressedOffset: p.compressedOffset - base }));
  yield* inflateParts(await open({ offset: base, length }), rebased, gather);
}

/** `views` (valid until the next, as inflateParts gives them) as a pull stream of copies, read only as its reader asks. */
export function viewStream(views: AsyncGenerator<Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await views.next();
        if (done) controller.close();
        else controller.enqueue(value.slice());
      },
      async cancel() {
        await views.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
