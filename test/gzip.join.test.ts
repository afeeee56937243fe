// Joined downloads (docs/storage-protocol.md, RFC 1952): separately compressed segments served as one
// single-member gzip that fflate and the runtime's DecompressionStream read whole.
import { gunzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { crc32, crc32Combine } from "../src/wire/crc32.ts";
import { compressSegment } from "../src/wire/deflate-segment.ts";
import {
  GZIP_HEADER,
  type SegmentOpener,
  concatSegmentStreams,
  concatSegments,
  gzipTrailer,
  joinedGzipLength,
  joinedGzipStream,
} from "../src/wire/gzip-join.ts";
import { mulberry32 } from "./helpers/random.ts";

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Seeded CSV-ish rows (compressible) or noise, `length` bytes. */
function content(random: () => number, length: number, kind: "csv" | "noise" | "run"): Uint8Array {
  const out = new Uint8Array(length);
  const words = ["id", "alpha", "42", "3.14", '"a, b"', "2024-05-01", "", "NA"].map((w) => new TextEncoder().encode(w));
  let i = 0;
  while (i < length) {
    if (kind === "noise") out[i++] = Math.floor(random() * 256);
    else if (kind === "run") out[i++] = 0x61;
    else {
      const word = words[Math.floor(random() * words.length)] ?? new Uint8Array(0);
      for (const byte of word) if (i < length) out[i++] = byte;
      if (i < length) out[i++] = random() < 0.2 ? 0x0a : 0x2c;
    }
  }
  return out;
}

interface Stored {
  raw: Uint8Array;
  segment: Uint8Array;
  crc: number;
}

/** Each piece compressed by its own compressor; the version CRC is continued as appends do. */
function storeVersion(pieces: readonly Uint8Array[], levels: readonly number[]) {
  const segments: Stored[] = pieces.map((raw, i) => {
    const { data, crc } = compressSegment(raw, levels[i % levels.length] ?? 6);
    return { raw, segment: data, crc };
  });
  let crc = 0;
  let rawLength = 0;
  for (const s of segments) {
    crc = crc32Combine(crc, s.crc, s.raw.length);
    rawLength += s.raw.length;
  }
  return { segments, crc, rawLength, raw: concat(pieces) };
}

const openerFor = (bytes: Uint8Array): SegmentOpener => async () => new Blob([bytes]).stream();
const readAll = async (stream: ReadableStream<Uint8Array>) => new Uint8Array(await new Response(stream).arrayBuffer());

function mixedPieces(seed: number): Uint8Array[] {
  const random = mulberry32(seed);
  return [
    content(random, 0, "csv"),
    content(random, 1, "csv"),
    content(random, 100 * 1024, "noise"),
    content(random, 300 * 1024, "run"),
    content(random, 5, "noise"),
    content(random, 180 * 1024, "csv"),
    content(random, 0, "csv"),
    content(random, 70_001, "csv"),
  ];
}

describe("gzip header and trailer (RFC 1952 §2.3)", () => {
  it("uses a fixed 10-byte header: deflate, no flags, no mtime, OS unknown", () => {
    expect([...GZIP_HEADER]).toEqual([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]);
  });

  it("writes the final empty block, CRC32 and ISIZE = length mod 2^32, little-endian", () => {
    expect([...gzipTrailer(0xcbf43926, 9)]).toEqual([0x03, 0x00, 0x26, 0x39, 0xf4, 0xcb, 9, 0, 0, 0]);
    expect([...gzipTrailer(1, 2 ** 32 + 0x0102)].slice(6)).toEqual([0x02, 0x01, 0, 0]);
    expect(() => gzipTrailer(0, -1)).toThrow(RangeError);
  });

  it("an empty version is a valid empty gzip file", async () => {
    const bytes = await readAll(joinedGzipStream([], 0, 0));
    expect(bytes.length).toBe(joinedGzipLength([]));
    expect(gunzipSync(bytes)).toEqual(new Uint8Array(0));
  });
});

describe("joinedGzipStream", () => {
  it("joins mixed segments into one member that fflate and DecompressionStream read whole", async () => {
    const { segments, crc, rawLength, raw } = storeVersion(mixedPieces(1), [1, 6, 9, 3]);
    expect(crc).toBe(crc32(raw));
    const sizes = segments.map((s) => s.segment.length);
    const joined = await readAll(joinedGzipStream(segments.map((s) => openerFor(s.segment)), crc, rawLength));

    expect(joined.length).toBe(joinedGzipLength(sizes));
    expect(gunzipSync(joined)).toEqual(raw);
    const viaRuntime = new Blob([joined]).stream().pipeThrough(new DecompressionStream("gzip"));
    expect(await readAll(viaRuntime)).toEqual(raw);
  });

  it("is corrupt-detecting: a wrong CRC makes the runtime's decoder fail", async () => {
    const { segments, crc, rawLength } = storeVersion(mixedPieces(2).slice(0, 3), [6]);
    const joined = await readAll(joinedGzipStream(segments.map((s) => openerFor(s.segment)), crc ^ 1, rawLength));
    const viaRuntime = new Blob([joined]).stream().pipeThrough(new DecompressionStream("gzip"));
    await expect(readAll(viaRuntime)).rejects.toThrow();
  });

  it("compaction: concatenated segments are one segment with the same decompressed content", async () => {
    const { segments, crc, rawLength, raw } = storeVersion(mixedPieces(3), [6]);
    const bytes = segments.map((s) => s.segment);
    const compacted = concatSegments(bytes.slice(1, 6));
    expect(await readAll(concatSegmentStreams(bytes.slice(1, 6).map(openerFor)))).toEqual(compacted);

    const afterCompaction = [bytes[0], compacted, ...bytes.slice(6)].filter((b) => b !== undefined);
    const joined = await readAll(joinedGzipStream(afterCompaction.map(openerFor), crc, rawLength));
    expect(joined.length).toBe(joinedGzipLength(afterCompaction.map((b) => b.length)));
    expect(gunzipSync(joined)).toEqual(raw);

    const whole = await readAll(joinedGzipStream([openerFor(concatSegments(bytes))], crc, rawLength));
    expect(gunzipSync(whole)).toEqual(raw);
  });

  it("opens segments lazily, in order, one at a time", async () => {
    const { segments, crc, rawLength, raw } = storeVersion(mixedPieces(4), [6]);
    const events: string[] = [];
    let open = 0;
    let maxOpen = 0;
    const openers = segments.map((s, i): SegmentOpener => async () => {
      events.push(`open ${i}`);
      maxOpen = Math.max(maxOpen, ++open);
      const source = new Blob([s.segment]).stream().getReader();
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await source.read();
          if (done) {
            events.push(`end ${i}`);
            open--;
            controller.close();
          } else controller.enqueue(value);
        },
      });
    });

    const reader = joinedGzipStream(openers, crc, rawLength).getReader();
    expect(events).toEqual([]);
    const first = await reader.read();
    expect([...(first.value ?? [])]).toEqual([...GZIP_HEADER]);
    expect(events).toEqual([]);

    const chunks: Uint8Array[] = first.value ? [first.value] : [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    expect(events).toEqual(segments.flatMap((_, i) => [`open ${i}`, `end ${i}`]));
    expect(maxOpen).toBe(1);
    expect(gunzipSync(concat(chunks))).toEqual(raw);
  });

  it("cancelling the download cancels the open segment and opens no more", async () => {
    const { segments, crc, rawLength } = storeVersion(mixedPieces(5).slice(2, 5), [6]);
    const opened: number[] = [];
    let cancelled: unknown;
    const openers = segments.map((s, i): SegmentOpener => async () => {
      opened.push(i);
      return new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(s.segment.subarray(0, 10));
        },
        cancel(reason: unknown) {
          cancelled = reason;
        },
      });
    });
    const reader = joinedGzipStream(openers, crc, rawLength).getReader();
    await reader.read();
    await reader.read();
    await reader.cancel("client went away");
    expect(opened).toEqual([0]);
    expect(cancelled).toBe("client went away");
  });

  it("errors the download when a segment cannot be opened", async () => {
    const failing: SegmentOpener = async () => {
      throw new Error("object missing");
    };
    await expect(readAll(joinedGzipStream([failing], 0, 0))).rejects.toThrow("object missing");
  });
});
