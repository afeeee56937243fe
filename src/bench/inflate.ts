// What reading one stored segment back costs in workerd, piece by piece (docs/performance.md,
// "The Parquet twin in workerd"): R2 alone, R2 and the platform's inflate read several ways, and
// the same with the cells found (CellDecoder), so the ways can be compared in one isolate.
import { CellDecoder } from "../csv/cell-decoder.ts";
import { inflateParts, inflateSegment } from "../storage/segment-inflate.ts";
import type { SegmentPart } from "../wire/parted-segment.ts";
import { openSegment } from "../storage/segment-store.ts";
import { rawRangeStream } from "../read/csv-range.ts";
import { sequenceStream } from "../wire/stream-sequence.ts";
import { crc32Checked } from "../wire/crc32-stream.ts";
import { joinedGzipStream } from "../wire/gzip-join.ts";

export const READ_WAYS = ["r2", "stream", "stream-probed", "stream-default", "pipe", "slices", "whole", "parts", "range", "range-before", "plain", "plain-before"] as const;
export type ReadWay = (typeof READ_WAYS)[number];

export interface ReadCounts {
  bytes: number;
  reads: number;
  smallestRead: number;
  largestRead: number;
  records: number;
  /** Output bytes not yet read when the last compressed byte went into the inflate: what it held ahead of the reader. */
  aheadBytes: number;
  seconds: number;
}

const EMPTY_FINAL_BLOCK = Uint8Array.of(0x03, 0x00);

/** Counts what `consume` is handed. */
class Tally {
  bytes = 0;
  reads = 0;
  smallest = Infinity;
  largest = 0;
  records = 0;
  /** `bytes` when the inflate's input ended. */
  atInputEnd = -1;
  readonly pauseMs: number;
  readonly #decoder: CellDecoder | null;

  constructor(cells: boolean, pauseMs: number) {
    this.#decoder = cells ? new CellDecoder({ midFile: true }) : null;
    this.pauseMs = pauseMs;
  }

  inputEnded(): void {
    this.atInputEnd = this.bytes;
  }

  async consume(value: Uint8Array): Promise<void> {
    if (this.pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, this.pauseMs));
    this.bytes += value.length;
    this.reads++;
    this.smallest = Math.min(this.smallest, value.length);
    this.largest = Math.max(this.largest, value.length);
    const decoder = this.#decoder;
    if (decoder === null || value.length === 0) return;
    decoder.push(value);
    for (let batch = decoder.take(); batch !== null; batch = decoder.take()) this.records += batch.records;
  }

  end(): void {
    const decoder = this.#decoder;
    if (decoder === null) return;
    decoder.finish();
    for (let batch = decoder.take(); batch !== null; batch = decoder.take()) this.records += batch.records;
  }
}

/** BYOB reads of `size` bytes at least, into one buffer handed back and forth. */
async function drainByob(stream: ReadableStream<Uint8Array>, size: number, tally: Tally): Promise<void> {
  const reader = stream.getReader({ mode: "byob" });
  let buffer = new Uint8Array(size);
  for (;;) {
    const { done, value } = await reader.readAtLeast(size, buffer);
    if (value === undefined) break;
    if (value.length > 0) await tally.consume(value);
    if (done) break;
    buffer = new Uint8Array(value.buffer);
  }
}

async function drainDefault(stream: ReadableStream<Uint8Array>, tally: Tally): Promise<void> {
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    await tally.consume(value);
  }
}

/** Writes `chunks()` into a DecompressionStream, then the final block, while its output is read. */
async function inflated(chunks: () => AsyncGenerator<Uint8Array>, size: number, tally: Tally): Promise<void> {
  const inflate = new DecompressionStream("deflate-raw");
  const writer = inflate.writable.getWriter();
  const writing = (async () => {
    for await (const chunk of chunks()) await writer.write(chunk);
    tally.inputEnded();
    await writer.write(EMPTY_FINAL_BLOCK.slice());
    await writer.close();
  })();
  await Promise.all([writing, drainByob(inflate.readable, size, tally)]);
}

/**
 * The segment at `key` read the `way` asked, its output read `size` bytes at a time (BYOB), and
 * with `cells` its records found as the build finds them, `pauseMs` waited before each read is
 * taken (a consumer slower than R2, as the build is).
 *   r2: the R2 body only; stream: inflateSegment, as readers other than the build read it;
 *   stream-probed: the chain inflateSegment and the build used before (the body through a JS
 *   TransformStream adding the final block), seeing when its input ends; stream-default:
 *   inflateSegment with a default reader; pipe: the R2 body piped natively into the inflate; slices: R2
 *   range reads of `slice` bytes, each one arrayBuffer(), written to the inflate; whole: one
 *   arrayBuffer() of the object, one write; parts: as the build reads it, group by group of
 *   `parts` (inflateParts); range: a `.csv` range download of the whole segment (rawRangeStream,
 *   inflatePartRange), read as a response is; range-before: the same as it was read before, each
 *   part its own R2 range read piped into inflateSegment, through a JavaScript slice; plain: the
 *   full `.csv` download to a client without gzip (range, its CRC-32 checked against `crc`);
 *   plain-before: the same as it was read before, the joined gzip through one gzip inflate.
 */
export async function readSegment(
  bucket: R2Bucket,
  key: string,
  way: ReadWay,
  size: number,
  slice: number,
  cells: boolean,
  pauseMs = 0,
  parts: SegmentPart[] = [],
  crc = 0,
): Promise<ReadCounts> {
  const tally = new Tally(cells, pauseMs);
  const started = performance.now();
  switch (way) {
    case "r2":
      await drainByob(await openSegment(bucket, key), size, tally);
      break;
    case "stream":
      await drainByob(inflateSegment(await openSegment(bucket, key)), size, tally);
      break;
    case "stream-probed": {
      // The chain segment-inflate.ts had before the native pipe, with the end of its input seen.
      const closed = new TransformStream<Uint8Array, Uint8Array>({
        flush(controller) {
          tally.inputEnded();
          controller.enqueue(EMPTY_FINAL_BLOCK.slice());
        },
      });
      const body = await openSegment(bucket, key);
      await drainByob(body.pipeThrough(closed).pipeThrough(new DecompressionStream("deflate-raw")), size, tally);
      break;
    }
    case "stream-default":
      await drainDefault(inflateSegment(await openSegment(bucket, key)), tally);
      break;
    case "pipe": {
      const inflate = new DecompressionStream("deflate-raw");
      const body = await openSegment(bucket, key);
      const piping = (async () => {
        await body.pipeTo(inflate.writable, { preventClose: true });
        tally.inputEnded();
        const writer = inflate.writable.getWriter();
        await writer.write(EMPTY_FINAL_BLOCK.slice());
        await writer.close();
      })();
      await Promise.all([piping, drainByob(inflate.readable, size, tally)]);
      break;
    }
    case "slices": {
      const head = await bucket.head(key);
      if (!head) throw new Error(`segment object missing: ${key}`);
      const total = head.size;
      await inflated(async function* () {
        for (let offset = 0; offset < total; offset += slice) {
          const object = await bucket.get(key, { range: { offset, length: Math.min(slice, total - offset) } });
          if (!object) throw new Error(`segment object missing: ${key}`);
          yield new Uint8Array(await object.arrayBuffer());
        }
      }, size, tally);
      break;
    }
    case "parts":
      for await (const bytes of inflateParts(await openSegment(bucket, key), parts, size)) await tally.consume(bytes);
      break;
    case "range": {
      const raw = parts.reduce((n, p) => n + p.rawBytes, 0);
      await drainDefault(rawRangeStream([{ parts, open: (range) => openSegment(bucket, key, range) }], 0, raw - 1), tally);
      break;
    }
    case "plain": {
      const raw = parts.reduce((n, p) => n + p.rawBytes, 0);
      await drainDefault(crc32Checked(rawRangeStream([{ parts, open: (range) => openSegment(bucket, key, range) }], 0, raw - 1), crc, raw), tally);
      break;
    }
    case "plain-before": {
      const raw = parts.reduce((n, p) => n + p.rawBytes, 0);
      await drainDefault(joinedGzipStream([() => openSegment(bucket, key)], crc, raw).pipeThrough(new DecompressionStream("gzip")), tally);
      break;
    }
    case "range-before": {
      const pass = () => new TransformStream<Uint8Array, Uint8Array>({ transform: (chunk, controller) => controller.enqueue(chunk) });
      const opened = parts.map((p) => async () => inflateSegment(await openSegment(bucket, key, { offset: p.compressedOffset, length: p.compressedBytes })).pipeThrough(pass()));
      await drainDefault(sequenceStream(opened), tally);
      break;
    }
    case "whole": {
      const object = await bucket.get(key);
      if (!object) throw new Error(`segment object missing: ${key}`);
      const bytes = new Uint8Array(await object.arrayBuffer());
      await inflated(async function* () {
        yield bytes;
      }, size, tally);
      break;
    }
  }
  tally.end();
  return {
    bytes: tally.bytes,
    reads: tally.reads,
    smallestRead: tally.reads === 0 ? 0 : tally.smallest,
    largestRead: tally.largest,
    records: tally.records,
    aheadBytes: tally.atInputEnd < 0 ? 0 : tally.bytes - tally.atInputEnd,
    seconds: (performance.now() - started) / 1000,
  };
}
