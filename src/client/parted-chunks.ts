// The chunks of a resumable gzip upload, each one parted gzip member (docs/storage-protocol.md,
// "Upload format"), so the server keeps every chunk's bytes as sent. The whole file is cut into
// parts once, as for a one-request upload (a BOM dropped at its start, blank lines at its end),
// and neighbouring parts are grouped into chunks: every chunk but the last ends at a record end,
// so nothing is carried between chunks. The same input always gives the same chunks, which is
// what lets a rerun skip the chunks the server already holds.
import { mergeParts, partedGzipHeader, PART_RAW_BYTES } from "../wire/parted-gzip-header.ts";
import { crc32Combine } from "../wire/crc32.ts";
import { concatBytes } from "../wire/deflate-segment.ts";
import { gzipTrailer } from "../wire/gzip-join.ts";
import { PartCutter, type CutPart } from "./gzip-stream.ts";

export interface PartedChunk {
  /** The gzip member to send. */
  bytes: Uint8Array;
  /** The raw CSV bytes it holds. */
  rawBytes: number;
}

/** Parts of about a quarter of a chunk (at most PART_RAW_BYTES), so chunks come out near their size. */
export function partBytesFor(chunkRawBytes: number): number {
  return Math.max(1, Math.min(PART_RAW_BYTES, Math.floor(chunkRawBytes / 4)));
}

/**
 * Raw CSV in; chunks of whole parts out, each at most `chunkRawBytes` raw bytes unless one part
 * alone is larger (a record longer than the chunk), and, but for the last, at least
 * `minChunkBytes` as sent (the server's `min-append-size`): content that compresses very well
 * takes more parts per chunk. Holds at most one chunk, compressed.
 */
export async function* partedChunks(raw: ReadableStream<Uint8Array>, level: number, chunkRawBytes: number, minChunkBytes = 0): AsyncGenerator<PartedChunk> {
  const cutter = new PartCutter(Math.min(9, Math.max(1, level)), partBytesFor(chunkRawBytes));
  let group: CutPart[] = [];
  let groupRaw = 0;
  let groupCompressed = 0;
  const reader = raw.getReader();
  try {
    for (let done = false; !done; ) {
      const next = await reader.read();
      done = next.done;
      for (const part of next.done ? cutter.finish() : cutter.push(next.value)) {
        // The parts alone are fewer bytes than the member that carries them.
        if (group.length > 0 && groupRaw + part.rawBytes > chunkRawBytes && groupCompressed >= minChunkBytes) {
          yield member(group);
          group = [];
          groupRaw = 0;
          groupCompressed = 0;
        }
        group.push(part);
        groupRaw += part.rawBytes;
        groupCompressed += part.data.length;
      }
    }
  } finally {
    reader.releaseLock();
  }
  yield member(group);
}

/** Header with the parts' index, the parts, `03 00` and the group's CRC-32 and length. */
function member(parts: CutPart[]): PartedChunk {
  let crc = 0;
  let rawBytes = 0;
  for (const part of parts) {
    crc = crc32Combine(crc, part.crc, part.rawBytes);
    rawBytes += part.rawBytes;
  }
  const bytes = concatBytes([partedGzipHeader(mergeParts(parts)), ...parts.map((p) => p.data), gzipTrailer(crc, rawBytes)]);
  return { bytes, rawBytes };
}
