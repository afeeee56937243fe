// Checks outside workerd that the joined gzip of SPEC B7 (segments compressed separately,
// joined without recompression, RFC 1952 single member) is read whole by Node's zlib
// (gunzipSync and a createGunzip stream) and, when installed, the gunzip CLI and Python.
// Usage: node scripts/check-gzip-node.mjs — exits 1 on any mismatch.
import { spawnSync } from "node:child_process";
import zlib from "node:zlib";
import { Deflate } from "fflate";

function mulberry32(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CRC_TABLE = Int32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  return c;
});
function crc32(crc, bytes) {
  let c = ~crc;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

// Same layout as src/storage/deflate-segment.ts: fflate's flush(true) is unreliable in 0.8.3,
// so flush() then an empty final block, whose 10 bits are swapped for an empty stored block.
function jsSegment(bytes, level) {
  const chunks = [];
  const deflate = new Deflate({ level }, (chunk, final) => {
    if (!final) return chunks.push(chunk);
    let highest = -1;
    for (let i = chunk.length - 1; i >= 0 && highest < 0; i--) {
      if (chunk[i]) highest = i * 8 + 31 - Math.clz32(chunk[i]);
    }
    const pending = highest - 1;
    if (pending < 0 || pending > 7 || !((chunk[0] >> pending) & 1)) throw new Error("unexpected fflate final block");
    const head = Math.ceil((pending + 3) / 8);
    const tail = new Uint8Array(head + 4);
    tail[0] = chunk[0] & ((1 << pending) - 1);
    tail.set([0, 0, 0xff, 0xff], head);
    chunks.push(tail);
  });
  deflate.push(bytes);
  deflate.flush();
  deflate.push(new Uint8Array(0), true);
  return Buffer.concat(chunks);
}

const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]);
function join(segments, crc, rawLength) {
  const trailer = Buffer.alloc(10);
  trailer[0] = 0x03;
  trailer.writeUInt32LE(crc >>> 0, 2);
  trailer.writeUInt32LE(rawLength % 2 ** 32, 6);
  return Buffer.concat([GZIP_HEADER, ...segments, trailer]);
}

function pieces(seed) {
  const random = mulberry32(seed);
  const csv = (n) => {
    let s = "";
    while (s.length < n) s += `${Math.floor(random() * 1e6)},"w ${Math.floor(random() * 50)}, x",2024-01-0${1 + Math.floor(random() * 9)}\n`;
    return Buffer.from(s.slice(0, n));
  };
  const noise = (n) => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)));
  return [csv(0), csv(1), noise(100 * 1024), Buffer.alloc(300 * 1024, 0x61), csv(180 * 1024), noise(7), csv(70_001)];
}

async function gunzipStream(bytes, seed) {
  const random = mulberry32(seed);
  const gunzip = zlib.createGunzip();
  const out = [];
  gunzip.on("data", (chunk) => out.push(chunk));
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

function external(command, args, input) {
  const run = spawnSync(command, args, { input, maxBuffer: 64 * 1024 * 1024 });
  if (run.error?.code === "ENOENT") return undefined;
  if (run.status !== 0) return Buffer.from(`exit ${run.status}: ${run.stderr}`);
  return run.stdout;
}

let failures = 0;
async function check(label, joined, expected) {
  const readers = {
    "zlib.gunzipSync": () => zlib.gunzipSync(joined),
    "zlib.createGunzip": () => gunzipStream(joined, 9),
    "raw DEFLATE between header and trailer": () => zlib.inflateRawSync(joined.subarray(10, -8)),
    "gunzip -c": () => external("gunzip", ["-c"], joined),
    python3: () =>
      external("python3", ["-c", "import gzip,sys; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))"], joined),
  };
  for (const [reader, read] of Object.entries(readers)) {
    let result;
    try {
      result = await read();
    } catch (error) {
      result = Buffer.from(String(error));
    }
    if (result === undefined) {
      console.log(`skip ${label}: ${reader} not installed`);
    } else if (Buffer.compare(result, expected) === 0) {
      console.log(`ok   ${label}: ${reader} (${joined.length} → ${expected.length} bytes)`);
    } else {
      failures++;
      console.log(`FAIL ${label}: ${reader} gave ${result.length} bytes: ${result.subarray(0, 80)}`);
    }
  }
}

const content = pieces(1);
const expected = Buffer.concat(content);
let crc = 0;
for (const piece of content) crc = crc32(crc, piece);
const levels = [1, 6, 9, 3];
const segments = content.map((piece, i) => jsSegment(piece, levels[i % levels.length]));
await check("js segments", join(segments, crc, expected.length), expected);
await check("js compacted", join([segments[0], Buffer.concat(segments.slice(1, 5)), ...segments.slice(5)], crc, expected.length), expected);

// The project's own TypeScript, when this Node strips types (22.18+, 23.6+).
if (process.features.typescript) {
  const { compressSegment } = await import("../src/storage/deflate-segment.ts");
  const { crc32Combine } = await import("../src/storage/crc32.ts");
  const { joinedGzipStream } = await import("../src/storage/gzip-join.ts");
  let tsCrc = 0;
  const tsSegments = content.map((piece, i) => {
    const segment = compressSegment(piece, levels[i % levels.length]);
    tsCrc = crc32Combine(tsCrc, segment.crc, segment.rawBytes);
    return segment.data;
  });
  const openers = tsSegments.map((bytes) => async () => new Blob([bytes]).stream());
  const joined = Buffer.from(await new Response(joinedGzipStream(openers, tsCrc, expected.length)).arrayBuffer());
  await check("ts modules", joined, expected);
} else {
  console.log("skip ts modules: this Node does not strip TypeScript types");
}

if (failures > 0) {
  console.error(`${failures} check(s) failed`);
  process.exit(1);
}
console.log("all checks passed");
