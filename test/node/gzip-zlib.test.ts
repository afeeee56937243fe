// Node's zlib (sync and streaming) and the gunzip CLI read the joined single-member gzip whole
// (docs/storage-protocol.md): segments made by separate compressors, joined by gzip-join, never recompressed.
import { execFileSync } from "node:child_process";
import { Readable } from "node:stream";
import { createGunzip, gunzipSync, inflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { bufferSource } from "../../src/wire/bytes.ts";
import { crc32, crc32Combine } from "../../src/wire/crc32.ts";
import { compressSegment } from "../../src/wire/deflate-segment.ts";
import { GZIP_HEADER, gzipTrailer, joinedGzipLength, joinedGzipStream } from "../../src/wire/gzip-join.ts";

function segmentsOf(parts: string[]) {
  const encoder = new TextEncoder();
  let crc = 0;
  let length = 0;
  const segments = parts.map((part) => {
    const bytes = encoder.encode(part);
    const segment = compressSegment(bytes, 3);
    crc = crc32Combine(crc, crc32(bytes), bytes.length);
    length += bytes.length;
    return segment.data;
  });
  return { segments, crc, length, text: parts.join("") };
}

async function joined(parts: string[]) {
  const { segments, crc, length, text } = segmentsOf(parts);
  const stream = joinedGzipStream(segments.map((s) => async () => new Blob([bufferSource(s)]).stream()), crc, length);
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  expect(bytes.length).toBe(joinedGzipLength(segments.map((s) => s.length)));
  return { bytes, text };
}

describe("joined gzip read by Node", () => {
  const parts = ["id,name\n", "1,Zürich\n", "", "2,\"a,b\"\n".repeat(5000), "3,😀\n"];

  it("zlib.gunzipSync reads every byte and sees one member", async () => {
    const { bytes, text } = await joined(parts);
    expect(Buffer.from(gunzipSync(bytes)).toString("utf8")).toBe(text);
    const body = bytes.subarray(GZIP_HEADER.length, bytes.length - 8);
    expect(Buffer.from(inflateRawSync(body)).toString("utf8")).toBe(text);
    expect(Array.from(bytes.subarray(bytes.length - 8))).toEqual(Array.from(gzipTrailer(crc32(new TextEncoder().encode(text)), new TextEncoder().encode(text).length).subarray(2)));
  });

  it("zlib.createGunzip reads it as a stream fed in small chunks", async () => {
    const { bytes, text } = await joined(parts);
    const chunks: Buffer[] = [];
    const pieces = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.subarray(i * 7, i * 7 + 7));
    for await (const chunk of Readable.from(pieces).pipe(createGunzip())) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString("utf8")).toBe(text);
  });

  it("the gunzip command reads it", async () => {
    const { bytes, text } = await joined(parts);
    expect(execFileSync("gunzip", ["-c"], { input: bytes }).toString("utf8")).toBe(text);
  });
});
