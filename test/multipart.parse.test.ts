// Well-formed multipart/form-data (RFC 7578, RFC 2046 §5.1.1): what workerd's own FormData
// serialisation produces, hand-written bodies with the rarer syntax, and boundaryFrom.

import { describe, expect, it } from "vitest";
import { boundaryFrom, parseMultipart } from "../src/write/multipart/index.ts";
import { chunkedStream, encode, readAll, readParts } from "./multipart.helpers.ts";

const text = (bytes: Uint8Array | null): string | null => (bytes === null ? null : new TextDecoder().decode(bytes));

describe("parseMultipart on workerd's FormData", () => {
  it("reads a string field and a File as Request serialises them", async () => {
    const csv = "city,pop\r\nOslo,709000\r\n\"Bergen, NO\",291000\r\n";
    const form = new FormData();
    form.append("collection", JSON.stringify({ name: "Cities", visibility: "public" }));
    form.append("dataset", new File([csv], "my cities ü.csv", { type: "text/csv" }));
    form.append("blob", new File([new Uint8Array([0, 13, 10, 45, 45, 255])], "raw.bin"));
    const request = new Request("http://x/", { method: "POST", body: form });
    const boundary = boundaryFrom(request.headers.get("content-type"));
    expect(boundary).not.toBeNull();

    const parts = await readParts(request.body!, boundary!);
    expect(parts.map((p) => ({ ...p, body: text(p.body) }))).toEqual([
      { name: "collection", fileName: null, contentType: null, mediaType: null, body: '{"name":"Cities","visibility":"public"}' },
      { name: "dataset", fileName: "my cities ü.csv", contentType: "text/csv", mediaType: "text/csv", body: csv },
      {
        name: "blob",
        fileName: "raw.bin",
        contentType: "application/octet-stream",
        mediaType: "application/octet-stream",
        body: text(new Uint8Array([0, 13, 10, 45, 45, 255])),
      },
    ]);
    expect(parts[2]!.body).toEqual(new Uint8Array([0, 13, 10, 45, 45, 255]));
  });

  it("agrees with request.formData() on the same body", async () => {
    const form = new FormData();
    form.append("a", "x\r\ny");
    form.append("b", new File(["--not a boundary\r\n"], "b.txt", { type: "text/plain; charset=utf-8" }));
    const request = new Request("http://x/", { method: "POST", body: form });
    const expected = await request.clone().formData();
    const parts = await readParts(request.body!, boundaryFrom(request.headers.get("content-type"))!);
    expect(text(parts[0]!.body)).toBe(expected.get("a"));
    const file = expected.get("b") as unknown as File;
    expect(parts[1]!.fileName).toBe(file.name);
    expect(parts[1]!.mediaType).toBe("text/plain");
    expect(text(parts[1]!.body)).toBe(await file.text());
  });
});

describe("parseMultipart on hand-written bodies", () => {
  const boundary = "simple boundary:=?";
  const body = [
    "This is the preamble. It is to be ignored.\r\n--simple boundary\r\n",
    "--simple boundary:=? \t \r\n",
    'Content-Disposition: form-data; name="collection"\r\n',
    "content-type: Application/JSON; charset=UTF-8\r\n",
    "\r\n",
    '{"name":"x"}',
    "\r\n--simple boundary:=?\r\n",
    "Content-Disposition: form-data; name=dataset;\r\n",
    '  filename="annual report.csv"; filename*=UTF-8\'\'na%C3%AFve%20report.csv\r\n',
    "X-Ignored: yes\r\n",
    "\r\n",
    "a,b\r\n\r\n",
    "\r\n--simple boundary:=?\r\n",
    'Content-Disposition: form-data; name="empty"; filename="C:\\dir\\e.csv"\r\n',
    "\r\n",
    "\r\n--simple boundary:=?--  \r\n",
    "This is the epilogue. --simple boundary:=?\r\n",
  ].join("");

  it("skips preamble and epilogue, honours padding, folding, filename* and empty bodies", async () => {
    const contentType = `multipart/form-data; boundary="${boundary}"`;
    expect(boundaryFrom(contentType)).toBe(boundary);
    const parts = await readParts(chunkedStream(encode(body)), boundary);
    expect(parts.map((p) => ({ ...p, body: text(p.body) }))).toEqual([
      {
        name: "collection",
        fileName: null,
        contentType: "Application/JSON; charset=UTF-8",
        mediaType: "application/json",
        body: '{"name":"x"}',
      },
      { name: "dataset", fileName: "naïve report.csv", contentType: null, mediaType: null, body: "a,b\r\n\r\n" },
      { name: "empty", fileName: "C:\\dir\\e.csv", contentType: null, mediaType: null, body: "" },
    ]);
  });

  it("reads a body whose first boundary opens the stream and a part with no blank body line", async () => {
    const raw = '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n--b\r\nContent-Disposition: form-data; name="c"\r\n\r\n\r\n--b--';
    const parts = await readParts(chunkedStream(encode(raw)), "b");
    expect(parts.map((p) => [p.name, text(p.body)])).toEqual([
      ["a", ""],
      ["c", ""],
    ]);
  });

  it("unescapes quoted-pairs and keeps the first filename when filename* is not decodable", async () => {
    const raw =
      '--b\r\nContent-Disposition: form-data; name="q\\"n"; filename="a\\\\b \\"c\\".csv"; filename*=UTF-8\'\'%FF\r\n\r\nx\r\n--b--\r\n';
    const [part] = await readParts(chunkedStream(encode(raw)), "b");
    expect(part).toMatchObject({ name: 'q"n', fileName: 'a\\b "c".csv' });
  });

  it("drains parts the consumer leaves unread or cancels", async () => {
    const raw = ["a", "b", "c", "d"].map((n) => `--b\r\nContent-Disposition: form-data; name="${n}"\r\n\r\n${n.repeat(1000)}\r\n`).join("") + "--b--";
    const ways = ["leave", "read", "cancel", "read"] as const;
    const parts = await readParts(chunkedStream(encode(raw), () => 7), "b", { skip: (i) => ways[i] ?? "read" });
    expect(parts.map((p) => [p.name, text(p.body)])).toEqual([
      ["a", null],
      ["b", "b".repeat(1000)],
      ["c", null],
      ["d", "d".repeat(1000)],
    ]);
  });

  it("pulls from the source only as the consumer reads", async () => {
    let pulls = 0;
    const chunk = encode("x".repeat(1024));
    const source = new ReadableStream<Uint8Array>(
      {
        start(controller) {
          controller.enqueue(encode('--b\r\nContent-Disposition: form-data; name="big"\r\n\r\n'));
        },
        pull(controller) {
          pulls++;
          controller.enqueue(chunk);
        },
      },
      { highWaterMark: 0 },
    );
    const iterator = parseMultipart(source, "b")[Symbol.asyncIterator]();
    const part = (await iterator.next()).value!;
    const reader = part.body.getReader();
    for (let i = 0; i < 5; i++) await reader.read();
    expect(pulls).toBeLessThanOrEqual(6);
    reader.releaseLock();
    await iterator.return?.();
    // Closing the iterator early cancels the source and errors the unfinished body.
    await expect(part.body.getReader().read()).rejects.toMatchObject({ reason: "cancelled" });
  });
});

describe("boundaryFrom (RFC 7578 §4.1, RFC 2046 §5.1.1)", () => {
  it.each([
    ["multipart/form-data; boundary=abc", "abc"],
    ["Multipart/Form-Data;boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW", "----WebKitFormBoundary7MA4YWxkTrZu0gW"],
    ['multipart/form-data; charset=utf-8; boundary="a b:c"', "a b:c"],
    ["multipart/form-data; BOUNDARY = x1 ", "x1"],
    [`multipart/form-data; boundary=${"a".repeat(70)}`, "a".repeat(70)],
  ])("%s → %s", (header, expected) => {
    expect(boundaryFrom(header)).toBe(expected);
  });

  it.each([
    null,
    "",
    "text/csv; boundary=abc",
    "multipart/mixed; boundary=abc",
    "multipart/form-data",
    "multipart/form-data; boundary=",
    'multipart/form-data; boundary="ends with space "',
    `multipart/form-data; boundary=${"a".repeat(71)}`,
    "multipart/form-data; boundary=a;boundary=b",
    'multipart/form-data; boundary="unterminated',
    "multipart/form-data; boundary=bad\\char",
  ])("%s → null", (header) => {
    expect(boundaryFrom(header)).toBeNull();
  });

  it("parseMultipart refuses an invalid boundary at once", () => {
    expect(() => parseMultipart(chunkedStream(new Uint8Array()), "")).toThrow(TypeError);
  });
});

describe("part bodies", () => {
  it("may be kept and transferred by the consumer without corrupting later parts", async () => {
    const big = "x".repeat(10_000);
    const raw = encode(`--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n${big}\r\n--b\r\nContent-Disposition: form-data; name="z"\r\n\r\nsecond\r\n--b--`);
    const bodies: string[] = [];
    for await (const part of parseMultipart(chunkedStream(raw), "b")) {
      const reader = part.body.getReader();
      let body = "";
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        body += new TextDecoder().decode(r.value);
        // Detaching what we were handed must not disturb what the parser still holds.
        structuredClone(r.value.buffer, { transfer: [r.value.buffer] });
      }
      bodies.push(body);
    }
    expect(bodies).toEqual([big, "second"]);
  });
});
