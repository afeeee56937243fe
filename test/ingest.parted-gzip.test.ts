// The parted gzip upload format (docs/storage-protocol.md, "Upload format"): what our client
// produces is stored byte for byte; a forged or sloppy part index is recompressed or refused,
// never stored as it came; third-party gzip still works.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { partedDeflateStream, partedEnvelope } from "../src/client/gzip-stream.ts";
import { MAX_PART_RAW_BYTES, partedGzipHeader, readPartedGzipHeader, type PartLengths } from "../src/wire/parted-gzip-header.ts";
import { crc32 } from "../src/wire/crc32.ts";
import { compressSegment, concatBytes as concat } from "../src/wire/deflate-segment.ts";
import { PartInflateError, PartInflater } from "../src/wire/part-inflater.ts";
import { deflateSync } from "fflate";
import { GZIP_HEADER, gzipTrailer } from "../src/wire/gzip-join.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { collectionPart, csvPart, download, expectProblem, gunzipText, write } from "./helpers/http.ts";
import { contentObjectCount } from "./helpers/storage.ts";

const encoder = new TextEncoder();

function table(rows: number, seed = 1): string {
  let text = "id,name,note\n";
  for (let i = 0; i < rows; i++) text += `${i},"name ${(i * seed) % 997}, quoted","line ${i % 13}\nwith a break"\n`;
  return text;
}


/** What our client sends: the parted gzip of `csv`, and its parts' bytes alone. */
async function clientGzip(csv: string | Uint8Array, partRawBytes = 4096): Promise<{ body: Uint8Array; parts: Uint8Array; index: PartLengths[] }> {
  const { stream, summary } = partedDeflateStream(3, partRawBytes);
  const bytes = typeof csv === "string" ? encoder.encode(csv) : csv;
  const parts = new Uint8Array(await new Response(new Response(bytes).body!.pipeThrough(stream)).arrayBuffer());
  const sum = await summary;
  const { header, trailer } = partedEnvelope(sum);
  return { body: concat([header, parts, trailer]), parts, index: sum.parts };
}

/** A parted gzip put together by hand: `pieces` are raw parts, each compressed on its own. */
function handMade(pieces: Uint8Array[], edit: (index: PartLengths[]) => void = () => {}): Uint8Array {
  const compressed = pieces.map((p) => compressSegment(p, 3));
  const index = compressed.map((c) => ({ compressedBytes: c.compressedBytes, rawBytes: c.rawBytes }));
  edit(index);
  const raw = concat(pieces);
  return concat([partedGzipHeader(index), ...compressed.map((c) => c.data), gzipTrailer(crc32(raw), raw.length)]);
}

async function create(key: TestKey, gz: Uint8Array, name = "parted"): Promise<Response> {
  return write("POST", "/v1/dataset", key, [collectionPart({ name }), csvPart(gz, "data.csv.gz", "application/gzip")]);
}

/** The one segment of a created dataset: its R2 bytes and its D1 part rows. */
async function storedSegment(
  versionId: string,
): Promise<{ bytes: Uint8Array; rawBytes: number; parts: Array<{ compressed_bytes: number; raw_bytes: number; row_count: number }> }> {
  const row = await env.DB.prepare("SELECT segment_key FROM version_segments WHERE version_id = ? ORDER BY position").bind(versionId).first<{ segment_key: string }>();
  const object = await env.CONTENT.get(row!.segment_key);
  const { results } = await env.DB.prepare("SELECT compressed_bytes, raw_bytes, row_count FROM segment_parts WHERE segment_key = ? ORDER BY part")
    .bind(row!.segment_key)
    .all<{ compressed_bytes: number; raw_bytes: number; row_count: number }>();
  const segment = await env.DB.prepare("SELECT raw_bytes FROM segments WHERE key = ?").bind(row!.segment_key).first<{ raw_bytes: number }>();
  return { bytes: new Uint8Array(await object!.arrayBuffer()), rawBytes: segment!.raw_bytes, parts: results };
}

async function created(response: Response): Promise<{ id: string; version: string; source: string }> {
  if (response.status !== 201) throw new Error(`create: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: string; version: string; source: string };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

describe("the parted gzip format", () => {
  it("reads back the header it writes, and leaves other gzip to the recompression path", () => {
    const index = [{ compressedBytes: 10, rawBytes: 20 }, { compressedBytes: 3, rawBytes: 0 }];
    const header = partedGzipHeader(index);
    expect(readPartedGzipHeader(header)).toEqual({ status: "parted", headerBytes: header.length, parts: index });
    expect(readPartedGzipHeader(header.subarray(0, header.length - 1)).status).toBe("more");
    expect(readPartedGzipHeader(GZIP_HEADER).status).toBe("not-parted");
    const otherVersion = header.slice();
    otherVersion[16] = 2;
    expect(readPartedGzipHeader(otherVersion).status).toBe("not-parted");
  });
});

describe("PartInflater: a part inflates alone, to its declared length, ending on a block boundary", () => {
  const raw = encoder.encode("a,b\n1,2\n".repeat(500));
  const part = compressSegment(raw, 3).data;

  async function inflate(bytes: Uint8Array, rawBytes: number): Promise<Uint8Array> {
    const inflater = new PartInflater(rawBytes);
    await inflater.write(bytes);
    return inflater.end();
  }

  it("gives back a segment part's bytes", async () => {
    expect(await inflate(part, raw.length)).toEqual(raw);
  });

  it("refuses a part with a final block, one cut before its sync flush, or a wrong length", async () => {
    await expect(inflate(deflateSync(raw), raw.length)).rejects.toBeInstanceOf(PartInflateError);
    await expect(inflate(part.subarray(0, part.length - 4), raw.length)).rejects.toBeInstanceOf(PartInflateError);
    await expect(inflate(part, raw.length - 1)).rejects.toBeInstanceOf(PartInflateError);
    await expect(inflate(part, raw.length + 1)).rejects.toBeInstanceOf(PartInflateError);
  });
});

describe("zero-recompression ingest", () => {
  it("stores our client's parts byte for byte; the .gz differs only in its header", async () => {
    const key = await createKey("parted-team", "roundtrip");
    const csv = table(2000);
    const sent = await clientGzip(csv);
    expect(sent.index.length).toBeGreaterThan(20);
    const record = await created(await create(key, sent.body));
    const stored = await storedSegment(record.version);
    expect(sameBytes(stored.bytes, sent.parts)).toBe(true);
    expect(stored.parts.map((p) => [p.compressed_bytes, p.raw_bytes])).toEqual(sent.index.map((p) => [p.compressedBytes, p.rawBytes]));
    expect(stored.parts.reduce((n, p) => n + p.row_count, 0)).toBe(2000);
    const gz = new Uint8Array(await (await download(record.source, key)).arrayBuffer());
    const headerBytes = sent.body.length - sent.parts.length - 10;
    expect(sameBytes(gz, concat([GZIP_HEADER, sent.body.subarray(headerBytes)]))).toBe(true);
    const rows = (await (await download(`/v1/dataset/${record.id}/latest/rows?offset=1500&limit=2`, key)).json()) as { rows: unknown[][] };
    expect(rows.rows[0]?.[0]).toBe(1500); // typed: the id column is an integer
  });

  it("appends from our client are stored as sent too, and checked against the header", async () => {
    const key = await createKey("parted-team", "append");
    const record = await created(await create(key, (await clientGzip(table(10))).body));
    const rows = table(300, 7).split("\n").slice(1).join("\n");
    const sent = await clientGzip(rows);
    const response = await write("POST", `/v1/dataset/${record.id}`, key, [csvPart(sent.body, "more.csv.gz", "application/gzip")]);
    expect(response.status).toBe(201);
    expect(await gunzipText(await download(record.source.replace(record.version, "latest"), key))).toBe(table(10) + rows);
    const ragged = await clientGzip("1,2\n");
    await expectProblem(await write("POST", `/v1/dataset/${record.id}`, key, [csvPart(ragged.body, "bad.csv.gz", "application/gzip")]), 422, "column_count_mismatch");
  });

  it("refuses invalid CSV in the parted form with the same problem as plain CSV", async () => {
    const key = await createKey("parted-team", "invalid");
    const csv = table(500) + "1,2\n";
    const plain = await write("POST", "/v1/dataset", key, [collectionPart({ name: "x" }), csvPart(csv)]);
    const expected = await expectProblem(plain, 422, "invalid_csv");
    const parted = await expectProblem(await create(key, (await clientGzip(csv)).body), 422, "invalid_csv");
    expect(parted.row).toBe(expected.row);
  });

  it("stops a decompression bomb at MAX_CONTENT_BYTES with 413, storing nothing", async () => {
    const key = await createKey("parted-team", "bomb");
    const before = (await contentObjectCount());
    const rows = encoder.encode("0\n".repeat(1 << 20));
    const pieces = [encoder.encode("a\n"), ...Array.from({ length: 40 }, () => rows)]; // 80 MiB, over the tests' 64 MiB
    await expectProblem(await create(key, handMade(pieces)), 413, "payload_too_large");
    expect((await contentObjectCount())).toBe(before);
  });

  it("infers the same column types as a plain CSV upload (the same scanner and typer)", async () => {
    const key = await createKey("parted-team", "types");
    let csv = "id,price,ok,day,name\n";
    for (let i = 0; i < 3000; i++) csv += `${i},${(i * 1.25).toFixed(2)},${i % 2 === 0},2026-01-${String((i % 28) + 1).padStart(2, "0")},"n ${i}"\n`;
    const plain = await created(await write("POST", "/v1/dataset", key, [collectionPart({ name: "p" }), csvPart(csv)]));
    const parted = await created(await create(key, (await clientGzip(csv)).body));
    const schemaOf = async (id: string) => ((await (await download(`/v1/dataset/${id}/latest/rows?limit=1`, key)).json()) as { schema: unknown }).schema;
    const expected = await schemaOf(plain.id);
    expect(JSON.stringify(expected)).toContain("integer");
    expect(await schemaOf(parted.id)).toEqual(expected);
  });

  it("takes a third party's plain gzip (CompressionStream) through the recompression path", async () => {
    const key = await createKey("parted-team", "plain");
    const csv = table(300);
    const gz = new Uint8Array(await new Response(new Response(csv).body!.pipeThrough(new CompressionStream("gzip"))).arrayBuffer());
    const record = await created(await create(key, gz));
    expect(await gunzipText(await download(record.source, key))).toBe(csv);
  });
});

describe("a parted gzip that breaks its promises is never stored as sent", () => {
  const head = encoder.encode("a\n12\n");

  /**
   * A part that is one fixed-Huffman block copying 3 bytes from 3 back (RFC 1951 §3.2.6): it
   * inflates only with the previous part's bytes before it, then a sync flush.
   */
  function backReferencePart(): Uint8Array {
    const bits: number[] = [0, 1, 0]; // BFINAL 0, BTYPE 01 (LSB first)
    const code = (value: number, length: number) => {
      for (let i = length - 1; i >= 0; i--) bits.push((value >> i) & 1); // Huffman codes MSB first
    };
    code(0b0000001, 7); // length symbol 257: 3 bytes
    code(2, 5); // distance symbol 2: 3 back
    code(0, 7); // end of block
    bits.push(0, 0, 0); // BFINAL 0, BTYPE 00: the sync flush's stored block
    while (bits.length % 8 !== 0) bits.push(0);
    const out: number[] = [];
    for (let i = 0; i < bits.length; i += 8) out.push(bits.slice(i, i + 8).reduce((byte, bit, j) => byte | (bit << j), 0));
    return Uint8Array.from([...out, 0x00, 0x00, 0xff, 0xff]);
  }

  async function expectRecompressed(key: TestKey, body: Uint8Array, content: string): Promise<void> {
    const record = await created(await create(key, body, "forged"));
    expect(await gunzipText(await download(record.source, key))).toBe(content);
    const stored = await storedSegment(record.version);
    // What the server compressed itself, not the parts it was sent.
    const header = readPartedGzipHeader(body);
    const sentParts = body.subarray(header.status === "parted" ? header.headerBytes : 10, body.length - 10);
    expect(sameBytes(stored.bytes, sentParts)).toBe(false);
    expect(stored.rawBytes).toBe(encoder.encode(content).length);
  }

  it("recompresses a part that references bytes before it", async () => {
    const key = await createKey("parted-team", "backref");
    const first = compressSegment(head, 3);
    const second = backReferencePart();
    const raw = encoder.encode("a\n12\n12\n");
    const body = concat([
      partedGzipHeader([{ compressedBytes: first.compressedBytes, rawBytes: 5 }, { compressedBytes: second.length, rawBytes: 3 }]),
      first.data,
      second,
      gzipTrailer(crc32(raw), raw.length),
    ]);
    // The whole stream is valid gzip: the continuous inflate has the bytes the part refers to.
    expect(await gunzipText(new Response(body))).toBe("a\n12\n12\n");
    await expectRecompressed(key, body, "a\n12\n12\n");
  });

  it("recompresses a part boundary that is not a record end", async () => {
    const key = await createKey("parted-team", "boundary");
    const csv = table(50);
    const cut = csv.indexOf("\nwith") + 1; // inside a quoted field
    await expectRecompressed(key, handMade([encoder.encode(csv.slice(0, cut)), encoder.encode(csv.slice(cut))]), csv);
  });

  it("recompresses wrong raw or compressed lengths in the index", async () => {
    const key = await createKey("parted-team", "lengths");
    const csv = table(50);
    const cut = csv.indexOf("\n3,") + 1;
    const pieces = [encoder.encode(csv.slice(0, cut)), encoder.encode(csv.slice(cut))];
    for (const edit of [
      (index: PartLengths[]) => {
        index[0]!.rawBytes -= 1;
        index[1]!.rawBytes += 1;
      },
      (index: PartLengths[]) => {
        index[0]!.compressedBytes -= 1;
        index[1]!.compressedBytes += 1;
      },
      (index: PartLengths[]) => {
        index[0]!.compressedBytes += index[1]!.compressedBytes - 4;
        index[1]!.compressedBytes = 4;
      },
    ]) {
      await expectRecompressed(key, handMade(pieces, edit), csv);
    }
  });

  it("recompresses a part declared over MAX_PART_RAW_BYTES", async () => {
    const key = await createKey("parted-team", "huge-part");
    const csv = "a\n" + "12345678\n".repeat(Math.ceil((MAX_PART_RAW_BYTES + 1) / 9));
    await expectRecompressed(key, handMade([encoder.encode(csv)]), csv);
  });

  it("recompresses content the scanner would change: a BOM, blank lines at the end", async () => {
    const key = await createKey("parted-team", "canonical");
    const bom = Uint8Array.of(0xef, 0xbb, 0xbf);
    await expectRecompressed(key, handMade([concat([bom, encoder.encode("a,b\n1,2\n")])]), "a,b\n1,2\n");
    await expectRecompressed(key, handMade([encoder.encode("a,b\n1,2\n"), encoder.encode("\n\n")]), "a,b\n1,2\n");
  });

  it("refuses a wrong CRC-32 or ISIZE, bytes after the trailer, or a truncated body, and keeps nothing", async () => {
    const key = await createKey("parted-team", "trailer");
    const good = (await clientGzip(table(200))).body;
    const badCrc = good.slice();
    badCrc[badCrc.length - 8]! ^= 1;
    const badSize = good.slice();
    badSize[badSize.length - 1]! ^= 1;
    const trailing = concat([good, Uint8Array.of(0)]);
    const truncated = good.subarray(0, good.length - 3);
    const before = (await contentObjectCount());
    const datasets = await env.DB.prepare("SELECT COUNT(*) AS n FROM datasets").first<{ n: number }>();
    for (const body of [badCrc, badSize, trailing, truncated]) await expectProblem(await create(key, body), 400, "invalid_request");
    expect((await contentObjectCount())).toBe(before);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM datasets").first<{ n: number }>()).toEqual(datasets);
  });
});
