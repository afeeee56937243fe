// Request bodies are re-chunked natively before the JS stages that cost a promise per chunk
// (src/http/large-chunks.ts): the same bytes, in chunks of at least 64 KiB but the last.
import { describe, expect, it } from "vitest";
import { largeChunks } from "../src/http/large-chunks.ts";
import { concatBytes } from "../src/wire/deflate-segment.ts";

async function chunksOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}


describe("largeChunks", () => {
  it("passes a native body's bytes unchanged, in chunks of at least 64 KiB", async () => {
    const bytes = crypto.getRandomValues(new Uint8Array(65536)).map((b, i) => b ^ i);
    const body = new Uint8Array(1_000_003);
    for (let at = 0; at < body.length; at += bytes.length) body.set(bytes.subarray(0, Math.min(bytes.length, body.length - at)), at);
    const plain = await chunksOf(new Response(body).body!);
    const chunks = await chunksOf(largeChunks(new Response(body).body!));
    expect(chunks.length).toBeLessThan(plain.length);
    expect(chunks.slice(0, -1).every((c) => c.length >= 64 * 1024)).toBe(true);
    expect(concatBytes(chunks)).toEqual(body);
  });

  it("returns a stream that offers no BYOB reads as it is", async () => {
    const stream = new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(Uint8Array.of(1, 2)), c.close()) });
    expect(largeChunks(stream)).toBe(stream);
  });

  it("passes the source's error on", async () => {
    const source: UnderlyingByteSource = { type: "bytes", pull: (c) => c.error(new Error("dropped")) };
    const failing = new ReadableStream(source) as ReadableStream<Uint8Array>;
    await expect(chunksOf(largeChunks(failing))).rejects.toThrow("dropped");
  });
});
