// The streamed multipart upload body: its announced length and Content-Digest match the bytes
// every attempt sends, it parses as multipart/form-data, and the dataset part is gzip of the file,
// in the parted format the server stores without recompressing.
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { readAllBytes } from "../../src/client/byte-streams.ts";
import { UploadSourceError } from "../../src/client/errors.ts";
import { partedDeflateStream, partedEnvelope } from "../../src/client/gzip-stream.ts";
import { prepareMultipart } from "../../src/client/multipart-upload.ts";
import { readPartedGzipHeader } from "../../src/wire/parted-gzip-header.ts";
import { sourceReader, type UploadInput } from "../../src/client/upload-source.ts";
import { fileSpool } from "../../src/cli/file-spool.ts";

const dir = mkdtempSync(join(tmpdir(), "pubset-upload-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function csv(rows: number): string {
  const lines = ["id,city,population"];
  for (let i = 0; i < rows; i++) lines.push(`${i},city-${i % 97},${(i * 7919) % 100_000}`);
  return lines.join("\n") + "\n";
}

async function prepare(input: UploadInput, options: { name?: string; spool?: typeof fileSpool } = {}) {
  const source = await sourceReader(input, options.name);
  return prepareMultipart({ name: "Cities", visibility: "public" }, { source, gzip: !source.name.endsWith(".gz") }, { level: 3, spool: options.spool });
}

async function formOf(body: Uint8Array, contentType: string) {
  return new Request("http://x/", { method: "POST", body: new Blob([body as Uint8Array<ArrayBuffer>]), headers: { "content-type": contentType } }).formData();
}

const digestOf = (bytes: Uint8Array) => `sha-256=:${createHash("sha256").update(bytes).digest("base64")}:`;

describe("prepareMultipart", () => {
  const text = csv(20_000);

  it.each([
    ["bytes", () => new TextEncoder().encode(text) as UploadInput],
    ["a Blob", () => new Blob([text]) as UploadInput],
    ["a one-shot stream", () => new Blob([text]).stream() as UploadInput],
  ])("from %s: length and digest match what every attempt sends", async (_label, make) => {
    const body = await prepare(make());
    const first = await readAllBytes(body.open());
    const second = await readAllBytes(body.open());
    expect(first.length).toBe(body.length);
    expect(Buffer.compare(first, second)).toBe(0);
    expect(body.contentDigest).toBe(digestOf(first));
    const form = await formOf(first, body.contentType);
    expect(JSON.parse(String(form.get("collection")))).toEqual({ name: "Cities", visibility: "public" });
    const file = form.get("dataset") as File;
    expect(file.name).toBe("dataset.csv.gz");
    expect(file.type).toBe("application/gzip");
    expect(gunzipSync(new Uint8Array(await file.arrayBuffer())).toString("utf8")).toBe(text);
    await body.dispose();
  });

  it("from a file path, through the CLI's temp-file spool, keeps the file's name", async () => {
    const path = join(dir, "cities.csv");
    writeFileSync(path, text);
    const body = await prepare({ path }, { spool: fileSpool });
    const sent = await readAllBytes(body.open());
    expect(body.contentDigest).toBe(digestOf(sent));
    const file = (await formOf(sent, body.contentType)).get("dataset") as File;
    expect(file.name).toBe("cities.csv.gz");
    expect(gunzipSync(new Uint8Array(await file.arrayBuffer())).toString("utf8")).toBe(text);
    await body.dispose();
  });

  it("sends a .gz file as it is", async () => {
    const gz = new Uint8Array(createHash("sha256").digest());
    const body = await prepare(new Blob([gz]), { name: "data.csv.gz" });
    const file = (await formOf(await readAllBytes(body.open()), body.contentType)).get("dataset") as File;
    expect(file.name).toBe("data.csv.gz");
    expect(Buffer.compare(new Uint8Array(await file.arrayBuffer()), gz)).toBe(0);
  });

  it("fails the send, not silently, when the source changes after the digest pass", async () => {
    let content = text;
    const body = await prepare({ stream: () => new Blob([content]).stream(), name: "c.csv" });
    content = csv(20_001);
    await expect(readAllBytes(body.open())).rejects.toBeInstanceOf(UploadSourceError);
  });

  it("builds a collection-only body for metadata updates", async () => {
    const body = await prepareMultipart({ visibility: "private" }, undefined, { level: 3 });
    const sent = await readAllBytes(body.open());
    expect(body.contentDigest).toBe(digestOf(sent));
    const form = await formOf(sent, body.contentType);
    expect(JSON.parse(String(form.get("collection")))).toEqual({ visibility: "private" });
    expect(form.has("dataset")).toBe(false);
  });
});

describe("the client's gzip is the parted format (docs/storage-protocol.md)", () => {
  const quoted = (rows: number) => {
    let out = "id,note\n";
    for (let i = 0; i < rows; i++) out += `${i},"a note, with a line\nbreak ${i % 101}"\n`;
    return out;
  };
  async function gzipOf(pieces: Uint8Array[]): Promise<Uint8Array> {
    const { stream, summary } = partedDeflateStream(3, 64 * 1024);
    const parts = await readAllBytes(new Blob(pieces as Uint8Array<ArrayBuffer>[]).stream().pipeThrough(stream));
    const { header, trailer } = partedEnvelope(await summary);
    return new Uint8Array(Buffer.concat([header, parts, trailer]));
  }

  it("lists parts cut at record ends, whatever the source's chunks", async () => {
    const bytes = new TextEncoder().encode(quoted(20_000));
    const whole = await gzipOf([bytes]);
    const chunked = await gzipOf(Array.from({ length: Math.ceil(bytes.length / 777) }, (_, i) => bytes.subarray(i * 777, (i + 1) * 777)));
    expect(Buffer.compare(whole, chunked)).toBe(0);
    const header = readPartedGzipHeader(whole);
    if (header.status !== "parted") throw new Error("not the parted format");
    expect(header.parts.length).toBeGreaterThan(5);
    let at = 0;
    const text = new TextDecoder().decode(bytes);
    for (const part of header.parts.slice(0, -1)) {
      at += part.rawBytes;
      expect(text.slice(at - 2, at)).toMatch(/"\n$/); // every part ends a record, never a quoted line break
    }
    expect(gunzipSync(whole).toString("utf8")).toBe(text);
  });

  it("drops a leading BOM and blank lines at the very end, as the server does", async () => {
    const bom = Uint8Array.of(0xef, 0xbb, 0xbf);
    const gz = await gzipOf([bom.subarray(0, 1), bom.subarray(1), new TextEncoder().encode("a,b\n1,2\n\r\n\n")]);
    expect(gunzipSync(gz).toString("utf8")).toBe("a,b\n1,2\n");
  });
});
