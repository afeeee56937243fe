// RFC 9530 Content-Digest: parsing, computing (the published examples) and the streaming check.
import { describe, expect, it } from "vitest";
import { utf8 } from "../src/wire/bytes.ts";
import {
  contentDigestHeader,
  type DigestAlgorithm,
  DigestMismatchError,
  digestVerifyingStream,
  parseContentDigest,
  type ParsedDigest,
} from "../src/wire/content-digest.ts";
import { HELLO_WORLD_DIGESTS, TEST_REQUEST } from "./fixtures/rfc9421/appendix-b.ts";

const ALGORITHMS: DigestAlgorithm[] = ["sha-256", "sha-512"];

function parsed(header: string): ParsedDigest {
  const result = parseContentDigest(header);
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

/** Sends `chunks` through `stream` and collects what comes out. */
async function pipe(chunks: Uint8Array[], stream: TransformStream<Uint8Array, Uint8Array>): Promise<Uint8Array> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const reader = source.pipeThrough(stream).getReader();
  const out: number[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return new Uint8Array(out);
    out.push(...value);
  }
}

function chunksOf(bytes: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.slice(i, i + size));
  return chunks;
}

describe("RFC 9530 examples", () => {
  it.each(ALGORITHMS)("computes the published %s digest of the RFC 9421 §B.2 body", async (algorithm) => {
    expect(await contentDigestHeader(utf8(TEST_REQUEST.body), algorithm)).toBe(HELLO_WORLD_DIGESTS[algorithm]);
  });

  it("defaults to sha-256", async () => {
    expect(await contentDigestHeader(utf8(TEST_REQUEST.body))).toBe(HELLO_WORLD_DIGESTS["sha-256"]);
  });
});

describe("parseContentDigest", () => {
  it.each(ALGORITHMS)("reads a %s member", (algorithm) => {
    const digest = parsed(HELLO_WORLD_DIGESTS[algorithm]);
    expect(digest.algorithm).toBe(algorithm);
    expect(digest.digest.length).toBe(algorithm === "sha-256" ? 32 : 64);
  });

  it("prefers sha-512 when both are sent, and ignores unknown algorithms", () => {
    const both = `md5=:AAAA:, ${HELLO_WORLD_DIGESTS["sha-256"]}, ${HELLO_WORLD_DIGESTS["sha-512"]}, unixsum=5`;
    expect(parsed(both).algorithm).toBe("sha-512");
    expect(parsed(`sha=:AAAA:, ${HELLO_WORLD_DIGESTS["sha-256"]}`).algorithm).toBe("sha-256");
  });

  it.each([
    ["no supported algorithm", "md5=:AAAA:, sha=:AAAA:"],
    ["an empty field", ""],
    ["a token instead of bytes", "sha-256=abc"],
    ["a digest of the wrong length", "sha-256=:AAAA:"],
    ["malformed syntax", "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE="],
    ["a malformed supported member beside a good one", `${HELLO_WORLD_DIGESTS["sha-512"]}, sha-256=:AAAA:`],
  ])("fails on %s", (_, header) => {
    expect(parseContentDigest(header).ok).toBe(false);
  });
});

describe("digestVerifyingStream", () => {
  const body = new Uint8Array(100_000).map((_, i) => (i * 31 + 7) % 256);

  it("runs on crypto.DigestStream in workerd", () => {
    expect(typeof (crypto as { DigestStream?: unknown }).DigestStream).toBe("function");
  });

  for (const useDigestStream of [true, false]) {
    const mode = useDigestStream ? "DigestStream" : "buffered";
    for (const algorithm of ALGORITHMS) {
      it(`${mode} ${algorithm}: passes a matching body through unchanged`, async () => {
        const expected = parsed(await contentDigestHeader(body, algorithm));
        const out = await pipe(chunksOf(body, 7_777), digestVerifyingStream(expected, { useDigestStream }));
        expect(out).toEqual(body);
      });

      it(`${mode} ${algorithm}: errors with DigestMismatchError when one byte differs`, async () => {
        const expected = parsed(await contentDigestHeader(body, algorithm));
        const tampered = body.slice();
        tampered[50_000] = (tampered[50_000] ?? 0) ^ 0xff;
        const result = pipe(chunksOf(tampered, 4096), digestVerifyingStream(expected, { useDigestStream }));
        await expect(result).rejects.toBeInstanceOf(DigestMismatchError);
      });

      it(`${mode} ${algorithm}: errors when the body is cut short`, async () => {
        const expected = parsed(await contentDigestHeader(body, algorithm));
        const result = pipe(chunksOf(body.slice(0, -1), 4096), digestVerifyingStream(expected, { useDigestStream }));
        await expect(result).rejects.toBeInstanceOf(DigestMismatchError);
      });
    }

    it(`${mode}: an empty body matches the digest of no bytes`, async () => {
      const expected = parsed(await contentDigestHeader(new Uint8Array(0)));
      expect(await pipe([], digestVerifyingStream(expected, { useDigestStream }))).toEqual(new Uint8Array(0));
    });
  }
});
