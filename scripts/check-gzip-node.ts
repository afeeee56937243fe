// Checks outside workerd that the worker's own joined gzip (docs/storage-protocol.md: segments compressed
// separately by src/storage/deflate-segment.ts, concatenated by compaction, closed by
// src/storage/gzip-join.ts, never recompressed) is read whole by Node's zlib (gunzipSync and a
// createGunzip stream) and, when installed, the gunzip CLI and Python. No copy of the
// compressor lives here: the modules under test are the worker's, imported as they ship.
// Usage: npm run check:gzip (node scripts/check-gzip-node.ts) — exits 1 on any mismatch.
import { spawnSync } from "node:child_process";
import zlib from "node:zlib";
import { bufferSource } from "../src/wire/bytes.ts";
import { crc32Combine } from "../src/wire/crc32.ts";
import { compressSegment } from "../src/wire/deflate-segment.ts";
import { concatSegmentStreams, joinedGzipLength, joinedGzipStream, type SegmentOpener } from "../src/wire/gzip-join.ts";

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Pieces that stress DEFLATE differently: empty, one byte, noise, long runs, CSV text. */
function pieces(seed: number): Buffer[] {
  const random = mulberry32(seed);
  const csv = (n: number) => {
    let s = "";
    while (s.length < n) s += `${Math.floor(random() * 1e6)},"w ${Math.floor(random() * 50)}, x",2024-01-0${1 + Math.floor(random() * 9)}\n`;
    return Buffer.from(s.slice(0, n));
  };
  const noise = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)));
  return [csv(0), csv(1), noise(100 * 1024), Buffer.alloc(300 * 1024, 0x61), csv(180 * 1024), noise(7), csv(70_001)];
}

async function gunzipStream(bytes: Uint8Array, seed: number): Promise<Buffer> {
  const random = mulberry32(seed);
  const gunzip = zlib.createGunzip();
  const out: Buffer[] = [];
  gunzip.on("data", (chunk: Buffer) => out.push(chunk));
  const done = new Promise((resolve, reject) => {
    gunzip.on("end", resolve);
    gunzip.on("error", reject);
  });
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + Math.floor(random() * 40_000);
    gunzip.write(bytes.subarray(at, at + size));
    at += size;
  }
  gunzip.end();
  await done;
  return Buffer.concat(out);
}

/** An external reader's output; undefined when it is not installed. */
function external(command: string, args: string[], input: Uint8Array): Buffer | undefined {
  const run = spawnSync(command, args, { input, maxBuffer: 64 * 1024 * 1024 });
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") return undefined;
  if (run.status !== 0) return Buffer.from(`exit ${run.status}: ${run.stderr}`);
  return run.stdout;
}

let failures = 0;
async function check(label: string, joined: Uint8Array, expected: Buffer): Promise<void> {
  const readers: Record<string, () => Buffer | undefined | Promise<Buffer | undefined>> = {
    "zlib.gunzipSync": () => zlib.gunzipSync(joined),
    "zlib.createGunzip": () => gunzipStream(joined, 9),
    "raw DEFLATE between header and trailer": () => zlib.inflateRawSync(joined.subarray(10, -8)),
    "gunzip -c": () => external("gunzip", ["-c"], joined),
    python3: () => external("python3", ["-c", "import gzip,sys; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))"], joined),
  };
  for (const [reader, read] of Object.entries(readers)) {
    let result: Buffer | undefined;
    try {
      result = await read();
    } catch (error: unknown) {
      result = Buffer.from(String(error));
    }
    if (result === undefined) {
      console.log(`skip ${label}: ${reader} not installed`);
    } else if (Buffer.compare(result, expected) === 0) {
      console.log(`ok   ${label}: ${reader} (${joined.length} → ${expected.length} bytes)`);
    } else {
      failures++;
      console.log(`FAIL ${label}: ${reader} gave ${result.length} bytes: ${result.subarray(0, 80).toString()}`);
    }
  }
}

const opener = (bytes: Uint8Array): SegmentOpener => async () => new Blob([bufferSource(bytes)]).stream();

async function joinedGzip(segments: SegmentOpener[], sizes: number[], crc: number, rawLength: number): Promise<Uint8Array> {
  const joined = new Uint8Array(await new Response(joinedGzipStream(segments, crc, rawLength)).arrayBuffer());
  if (joined.length !== joinedGzipLength(sizes)) throw new Error(`joinedGzipLength says ${joinedGzipLength(sizes)}, the stream gave ${joined.length}`);
  return joined;
}

const content = pieces(1);
const expected = Buffer.concat(content);
const levels = [1, 6, 9, 3];
let crc = 0;
const segments = content.map((piece, i) => {
  const segment = compressSegment(piece, levels[i % levels.length] ?? 3);
  crc = crc32Combine(crc, segment.crc, segment.rawBytes);
  return segment.data;
});
await check("segments", await joinedGzip(segments.map(opener), segments.map((s) => s.length), crc, expected.length), expected);

// Compaction concatenates neighbouring segments byte for byte into one (concatSegmentStreams).
const compacted = new Uint8Array(await new Response(concatSegmentStreams(segments.slice(1, 5).map(opener))).arrayBuffer());
const afterCompaction = [segments[0]!, compacted, ...segments.slice(5)];
await check("compacted", await joinedGzip(afterCompaction.map(opener), afterCompaction.map((s) => s.length), crc, expected.length), expected);

if (failures > 0) {
  console.error(`${failures} check(s) failed`);
  process.exit(1);
}
console.log("all checks passed");
