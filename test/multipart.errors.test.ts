// Malformed and failing multipart bodies: every one ends in an error the reader of the current
// part body or the iterator sees, never in a body that looks complete; errors of the source
// come through as the very same object.

import { describe, expect, it } from "vitest";
import { MultipartError, parseMultipart } from "../src/write/multipart/index.ts";
import { chunkedStream, concat, encode, readAll, readParts, rejectionOf } from "./multipart.helpers.ts";

const part = (name: string, body: string, extra = ""): string =>
  `--b\r\nContent-Disposition: form-data; name="${name}"\r\n${extra}\r\n${body}\r\n`;
const VALID = part("collection", '{"name":"x"}') + part("dataset", "a,b\r\n1,2\r\n", "Content-Type: text/csv\r\n") + "--b--\r\n";

async function reasonOf(raw: string, limits?: Parameters<typeof parseMultipart>[2]): Promise<string> {
  const error = await rejectionOf(readParts(chunkedStream(encode(raw)), "b", { limits }));
  expect(error).toBeInstanceOf(MultipartError);
  return (error as MultipartError).reason;
}

describe("truncated bodies", () => {
  it("fail at every cut before the end of the close delimiter, under every chunking", async () => {
    const bytes = encode(VALID);
    const closeEnd = VALID.indexOf("--b--") + 5;
    for (let cut = 0; cut < bytes.length; cut++) {
      for (const size of [1, 3, 1000]) {
        const run = readParts(chunkedStream(bytes.subarray(0, cut), () => size), "b");
        if (cut >= closeEnd) {
          await expect(run).resolves.toHaveLength(2);
        } else {
          const error = await rejectionOf(run);
          expect(error, `cut ${cut}`).toBeInstanceOf(MultipartError);
          expect((error as MultipartError).reason).toBe(cut < 3 ? "missing_boundary" : "unexpected_end");
        }
      }
    }
  });

  it("error the reader of the part body that was cut", async () => {
    const raw = encode('--b\r\nContent-Disposition: form-data; name="dataset"\r\n\r\n' + "row\r\n".repeat(1000));
    const iterator = parseMultipart(chunkedStream(raw, () => 512), "b")[Symbol.asyncIterator]();
    const first = await iterator.next();
    const error = await rejectionOf(readAll(first.value!.body));
    expect(error).toMatchObject({ reason: "unexpected_end" });
    // The iterator reports the same error afterwards.
    expect(await rejectionOf(iterator.next())).toBe(error);
  });
});

describe("malformed bodies", () => {
  it("reject a body without the boundary", async () => {
    expect(await reasonOf("")).toBe("missing_boundary");
    expect(await reasonOf("--c\r\n\r\n--c--")).toBe("missing_boundary");
  });

  it("reject a boundary followed by something other than CRLF or --", async () => {
    expect(await reasonOf('--bx\r\nContent-Disposition: form-data; name="a"\r\n\r\n\r\n--b--')).toBe("garbled_boundary");
    expect(await reasonOf(part("a", "1") + "--b-\r\n")).toBe("garbled_boundary");
    expect(await reasonOf(part("a", "1\r\n--bb") + "--b--")).toBe("garbled_boundary");
  });

  it("reject a part without Content-Disposition form-data and a name", async () => {
    expect(await reasonOf("--b\r\n\r\nbody\r\n--b--")).toBe("invalid_disposition");
    expect(await reasonOf("--b\r\nContent-Type: text/plain\r\n\r\nbody\r\n--b--")).toBe("invalid_disposition");
    expect(await reasonOf('--b\r\nContent-Disposition: attachment; name="a"\r\n\r\nx\r\n--b--')).toBe("invalid_disposition");
    expect(await reasonOf('--b\r\nContent-Disposition: form-data; filename="a"\r\n\r\nx\r\n--b--')).toBe("invalid_disposition");
  });

  it("reject malformed header lines and non-identity transfer encodings", async () => {
    expect(await reasonOf('--b\r\nContent-Disposition: form-data; name="a"\r\nno colon\r\n\r\nx\r\n--b--')).toBe("malformed_header");
    expect(await reasonOf('--b\r\nContent-Disposition: form-data; name="a"\r\nBad\nName: x\r\n\r\nx\r\n--b--')).toBe("malformed_header");
    expect(await reasonOf(part("a", "eA==", "Content-Transfer-Encoding: base64\r\n") + "--b--")).toBe("malformed_header");
    expect(await reasonOf(part("a", "x", 'Content-Disposition: form-data; name="b"\r\n') + "--b--")).toBe("malformed_header");
    await expect(readParts(chunkedStream(encode(part("a", "x", "Content-Transfer-Encoding: 8BIT\r\n") + "--b--")), "b")).resolves.toHaveLength(1);
  });

  it("reject a header section over maxHeaderBytes, exactly at the limit", async () => {
    const header = 'Content-Disposition: form-data; name="a"\r\n';
    const raw = (padding: number): string => `--b\r\n${header}X: ${"y".repeat(padding)}\r\n\r\nbody\r\n--b--`;
    // Header section = header line + `X: ` + padding + CRLF + the blank line.
    const fits = 1024 - header.length - 3 - 4;
    for (const size of [1, 5, 4096]) {
      const ok = readParts(chunkedStream(encode(raw(fits)), () => size), "b", { limits: { maxHeaderBytes: 1024 } });
      await expect(ok).resolves.toHaveLength(1);
      const error = await rejectionOf(readParts(chunkedStream(encode(raw(fits + 1)), () => size), "b", { limits: { maxHeaderBytes: 1024 } }));
      expect(error).toMatchObject({ reason: "headers_too_long" });
    }
    // The default limit holds against an endless header line too.
    expect(await reasonOf(`--b\r\n${header}X: ${"y".repeat(20_000)}`)).toBe("headers_too_long");
    expect(await reasonOf(`--b${" ".repeat(20_000)}\r\n`)).toBe("headers_too_long");
  });

  it("reject more parts than maxParts", async () => {
    const raw = part("a", "1") + part("b", "2") + part("c", "3") + "--b--";
    await expect(readParts(chunkedStream(encode(raw)), "b", { limits: { maxParts: 3 } })).resolves.toHaveLength(3);
    expect(await reasonOf(raw, { maxParts: 2 })).toBe("too_many_parts");
  });
});

describe("errors of the source stream", () => {
  const boom = new Error("digest mismatch");

  function failingSource(prefix: Uint8Array, when: "start" | "pull" = "pull"): ReadableStream<Uint8Array> {
    let sent = false;
    return new ReadableStream<Uint8Array>(
      {
        start(controller) {
          if (when === "start") controller.enqueue(prefix);
        },
        pull(controller) {
          if (when === "pull" && !sent) {
            sent = true;
            controller.enqueue(prefix);
          } else {
            controller.error(boom);
          }
        },
      },
      { highWaterMark: 0 },
    );
  }

  it("reach the reader of the current part body as the same object", async () => {
    const raw = encode('--b\r\nContent-Disposition: form-data; name="dataset"\r\n\r\nsome rows');
    const iterator = parseMultipart(failingSource(raw), "b")[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(await rejectionOf(readAll(first.value!.body))).toBe(boom);
    expect(await rejectionOf(iterator.next())).toBe(boom);
  });

  it("reach the iterator as the same object while headers are read", async () => {
    const raw = encode('--b\r\nContent-Disposition: form-da');
    expect(await rejectionOf(readParts(failingSource(raw), "b"))).toBe(boom);
  });

  it("raised at the very end of the body (a digest check) reach the last part's reader", async () => {
    const checked = chunkedStream(encode(VALID), () => 16).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        flush() {
          throw boom;
        },
      }),
    );
    const iterator = parseMultipart(checked, "b")[Symbol.asyncIterator]();
    const collection = (await iterator.next()).value!;
    expect(new TextDecoder().decode(await readAll(collection.body))).toBe('{"name":"x"}');
    const dataset = (await iterator.next()).value!;
    expect(await rejectionOf(readAll(dataset.body))).toBe(boom);
    expect(await rejectionOf(iterator.next())).toBe(boom);
  });

  it("are seen even when the last body is skipped, and a size limit error passes unchanged", async () => {
    class TooLarge extends Error {}
    const limit = new TooLarge("over MAX_UPLOAD_BYTES");
    let seen = 0;
    const limited = chunkedStream(concat(encode(VALID), encode("epilogue ".repeat(100))), () => 64).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.length;
          if (seen > encode(VALID).length + 200) throw limit;
          controller.enqueue(chunk);
        },
      }),
    );
    const error = await rejectionOf(readParts(limited, "b", { skip: () => "leave" }));
    expect(error).toBe(limit);
  });
});
