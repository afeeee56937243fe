// The two client-compressed forms of a bench CSV, written next to it: the parted gzip our client
// sends (src/client/gzip-stream.ts, stored by the server without recompressing) and a plain gzip
// at the same level (Node's zlib, what a third-party client sends: inflated and compressed again).
import { createReadStream, createWriteStream, statSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream, WritableStream as NodeWritableStream } from "node:stream/web";
import { createGzip } from "node:zlib";
import { partedDeflateStream, partedEnvelope } from "../../src/client/gzip-stream.ts";

export interface ClientGzips {
  parted: { path: string; bytes: number };
  plain: { path: string; bytes: number };
}

const LEVEL = 3;

async function writeParted(csvPath: string, outPath: string): Promise<void> {
  const partsPath = `${outPath}.parts`;
  const { stream, summary } = partedDeflateStream(LEVEL);
  const source = Readable.toWeb(createReadStream(csvPath, { highWaterMark: 1 << 20 })) as unknown as ReadableStream<Uint8Array>;
  const sink = Writable.toWeb(createWriteStream(partsPath)) as unknown as WritableStream<Uint8Array>;
  await (source.pipeThrough(stream) as unknown as NodeReadableStream<Uint8Array>).pipeTo(sink as unknown as NodeWritableStream<Uint8Array>);
  const { header, trailer } = partedEnvelope(await summary);
  const out = createWriteStream(outPath);
  out.write(header);
  await pipeline(createReadStream(partsPath), out, { end: false });
  await new Promise<void>((resolve, reject) => out.end(trailer, (error?: Error | null) => (error ? reject(error) : resolve())));
}

export async function writeClientGzips(csvPath: string): Promise<ClientGzips> {
  const parted = csvPath.replace(/\.csv$/, ".parted.csv.gz");
  const plain = csvPath.replace(/\.csv$/, ".plain.csv.gz");
  await writeParted(csvPath, parted);
  await pipeline(createReadStream(csvPath), createGzip({ level: LEVEL }), createWriteStream(plain));
  return { parted: { path: parted, bytes: statSync(parted).size }, plain: { path: plain, bytes: statSync(plain).size } };
}
