// A 50 MB part generated on the fly and pulled through the parser: it completes with every byte
// counted, which only a parser that streams part bodies can do inside a 128 MB isolate.
// Throughput is printed for the record, never asserted.

import { expect, it } from "vitest";
import { parseMultipart } from "../src/write/multipart/index.ts";
import { mulberry32 } from "./helpers/random.ts";
import { encode } from "./multipart.helpers.ts";

const BOUNDARY = "----WebKitFormBoundary7MA4YWxkTrZu0gW";
const CHUNK = 64 * 1024;

/** CSV-looking bytes with CRLF line ends and dashes, so the delimiter search sees lifelike data. */
function csvChunk(seed: number): Uint8Array {
  const random = mulberry32(seed);
  const out = new Uint8Array(CHUNK);
  const alphabet = encode("abcdefghijklmnopqrstuvwxyz0123456789,,,,---\r\n");
  for (let i = 0; i < CHUNK; i++) out[i] = alphabet[Math.floor(random() * alphabet.length)]!;
  return out;
}

/** `--B` + headers, `total` bytes of body, `CRLF--B--`, produced chunk by chunk on demand. */
function generatedUpload(total: number): ReadableStream<Uint8Array> {
  const head = encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="dataset"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\n`);
  const tail = encode(`\r\n--${BOUNDARY}--\r\n`);
  const samples = [csvChunk(1), csvChunk(2), csvChunk(3)];
  let sent = -1;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent < 0) {
          controller.enqueue(head);
          sent = 0;
        } else if (sent < total) {
          const size = Math.min(CHUNK, total - sent);
          // A fresh buffer per chunk, as the network delivers; the parser may hand it on as is.
          controller.enqueue(samples[(sent / CHUNK) % samples.length]!.slice(0, size));
          sent += size;
        } else if (sent === total) {
          controller.enqueue(tail);
          sent++;
        } else {
          controller.close();
        }
      },
    },
    { highWaterMark: 0 },
  );
}

async function drain(stream: ReadableStream<Uint8Array>): Promise<number> {
  const reader = stream.getReader();
  let bytes = 0;
  for (let r = await reader.read(); !r.done; r = await reader.read()) bytes += r.value.length;
  return bytes;
}

it("streams a 50 MB part with bounded memory", async () => {
  const total = 50 * 1000 * 1000 + 7;
  const baselineStart = performance.now();
  await drain(generatedUpload(total));
  const baseline = performance.now() - baselineStart;

  const start = performance.now();
  let counted = 0;
  let parts = 0;
  for await (const part of parseMultipart(generatedUpload(total), BOUNDARY)) {
    parts++;
    expect(part).toMatchObject({ name: "dataset", fileName: "big.csv", mediaType: "text/csv" });
    counted += await drain(part.body);
  }
  const elapsed = performance.now() - start;
  expect(parts).toBe(1);
  expect(counted).toBe(total);
  const mbps = (ms: number): string => (ms > 0 ? `${(total / 1e6 / (ms / 1000)).toFixed(0)} MB/s` : "n/a (clock did not advance)");
  console.log(`multipart: ${total} bytes in ${elapsed.toFixed(0)} ms, ${mbps(elapsed)}; the source alone: ${mbps(baseline)}`);
}, 120_000);
