// The pacing of background copies (src/storage/paced-stream.ts): bytes pass through unchanged,
// and after each slice the copy rests in proportion to how long the slice took.
import { describe, expect, it } from "vitest";
import { pacedStream } from "../src/storage/paced-stream.ts";

function chunked(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream({ pull: (controller) => (next < chunks.length ? controller.enqueue(chunks[next++]!) : controller.close()) });
}

describe("pacedStream", () => {
  it("passes every byte through in order, resting after each slice by the share it may take", async () => {
    const chunks = Array.from({ length: 40 }, (_, i) => new Uint8Array(Array.from({ length: 4 }, (_, j) => (i * 4 + j) % 256)));
    let clock = 0;
    const rests: number[] = [];
    // Every slice takes 3 ms of the clock: a quarter share rests three times that.
    const paced = pacedStream({ sliceBytes: 16, share: 0.25, maxRestMs: 15 }, () => (clock += 3), async (ms) => void rests.push(ms));
    const out = new Uint8Array(await new Response(chunked(chunks).pipeThrough(paced)).arrayBuffer());
    expect(out).toEqual(new Uint8Array(chunks.flatMap((c) => [...c])));
    expect(rests).toEqual(Array(10).fill(9));
  });

  it("never rests longer than its cap", async () => {
    const rests: number[] = [];
    let clock = 0;
    const paced = pacedStream({ sliceBytes: 1, share: 0.1, maxRestMs: 50 }, () => (clock += 100), async (ms) => void rests.push(ms));
    await new Response(chunked([new Uint8Array([1]), new Uint8Array([2])]).pipeThrough(paced)).arrayBuffer();
    expect(rests).toEqual([50, 50]);
  });
});
