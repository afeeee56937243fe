// RFC 9530 Content-Digest: parse the header, compute it, and check a body against it while
// the body streams through, so an upload is never held in memory just to be hashed.

import { timingSafeEqual, toBase64, bufferSource } from "./bytes.ts";
import { type BareItem, parseDictionary } from "./structured-fields.ts";

export type DigestAlgorithm = "sha-256" | "sha-512";

export interface ParsedDigest {
  algorithm: DigestAlgorithm;
  digest: Uint8Array;
}

export type ParseDigestResult = { ok: true; value: ParsedDigest } | { ok: false; error: string };

const ALGORITHMS: Record<DigestAlgorithm, { webCrypto: "SHA-256" | "SHA-512"; bytes: number }> = {
  "sha-256": { webCrypto: "SHA-256", bytes: 32 },
  "sha-512": { webCrypto: "SHA-512", bytes: 64 },
};

/** When a client sends several supported digests, the first of these present is checked. */
const PREFERENCE: readonly DigestAlgorithm[] = ["sha-512", "sha-256"];

/**
 * Parses a Content-Digest field (RFC 9530 §2): a Dictionary of algorithm → byte sequence.
 * Unknown algorithms are ignored (§2); every supported one present must be well formed, and at
 * least one must be present.
 */
export function parseContentDigest(header: string): ParseDigestResult {
  const parsed = parseDictionary(header);
  if (!parsed.ok) return { ok: false, error: `malformed Content-Digest: ${parsed.error}` };
  const found = new Map<DigestAlgorithm, Uint8Array>();
  for (const algorithm of PREFERENCE) {
    const member = parsed.value.get(algorithm);
    if (member === undefined) continue;
    const value: BareItem | null = member.kind === "item" ? member.value : null;
    if (value?.type !== "bytes") return { ok: false, error: `Content-Digest ${algorithm} is not a byte sequence` };
    if (value.value.length !== ALGORITHMS[algorithm].bytes) {
      return { ok: false, error: `Content-Digest ${algorithm} has the wrong length` };
    }
    found.set(algorithm, value.value);
  }
  for (const algorithm of PREFERENCE) {
    const digest = found.get(algorithm);
    if (digest !== undefined) return { ok: true, value: { algorithm, digest } };
  }
  return { ok: false, error: "Content-Digest has no sha-256 or sha-512 member" };
}

export async function digestBytes(bytes: Uint8Array, algorithm: DigestAlgorithm): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest(ALGORITHMS[algorithm].webCrypto, bufferSource(bytes)));
}

/** The Content-Digest field value for a whole body (RFC 9530 §2), e.g. `sha-256=:…:`. */
export async function contentDigestHeader(bytes: Uint8Array, algorithm: DigestAlgorithm = "sha-256"): Promise<string> {
  return `${algorithm}=:${toBase64(await digestBytes(bytes, algorithm))}:`;
}

/** The body that arrived does not hash to the digest its Content-Digest field announced. */
export class DigestMismatchError extends Error {
  override readonly name = "DigestMismatchError";
  readonly algorithm: DigestAlgorithm;
  constructor(algorithm: DigestAlgorithm) {
    super(`content does not match its Content-Digest (${algorithm})`);
    this.algorithm = algorithm;
  }
}

interface Hasher {
  update(chunk: Uint8Array): Promise<void>;
  finish(): Promise<Uint8Array>;
}

// workerd's crypto.DigestStream hashes incrementally; Node and browsers lack it.
type DigestStreamConstructor = new (algorithm: string) => WritableStream<Uint8Array> & { readonly digest: Promise<ArrayBuffer> };

function nativeHasher(algorithm: DigestAlgorithm): Hasher | null {
  const Native = (crypto as { DigestStream?: DigestStreamConstructor }).DigestStream;
  if (Native === undefined) return null;
  const stream = new Native(ALGORITHMS[algorithm].webCrypto);
  const writer = stream.getWriter();
  return {
    update: (chunk) => writer.write(chunk),
    finish: async () => {
      await writer.close();
      return new Uint8Array(await stream.digest);
    },
  };
}

// Copies each chunk, since the consumer downstream owns the original once it is enqueued.
function bufferingHasher(algorithm: DigestAlgorithm): Hasher {
  const chunks: Uint8Array[] = [];
  let length = 0;
  return {
    update: async (chunk) => {
      chunks.push(chunk.slice());
      length += chunk.length;
    },
    finish: () => {
      const whole = new Uint8Array(length);
      let offset = 0;
      for (const chunk of chunks) {
        whole.set(chunk, offset);
        offset += chunk.length;
      }
      chunks.length = 0;
      return digestBytes(whole, algorithm);
    },
  };
}

export interface DigestStreamOptions {
  /** Use `crypto.DigestStream` when the runtime has it (default true); false forces buffering. */
  useDigestStream?: boolean;
}

/**
 * Passes bytes through unchanged and, when the input ends, errors the stream with a
 * DigestMismatchError unless they hash to `expected` (RFC 9530 §2). Digests are compared in
 * constant time.
 */
export function digestVerifyingStream(
  expected: ParsedDigest,
  options: DigestStreamOptions = {},
): TransformStream<Uint8Array, Uint8Array> {
  const hasher =
    (options.useDigestStream === false ? null : nativeHasher(expected.algorithm)) ??
    bufferingHasher(expected.algorithm);
  return new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      await hasher.update(chunk);
      controller.enqueue(chunk);
    },
    async flush() {
      const actual = await hasher.finish();
      if (!timingSafeEqual(actual, expected.digest)) throw new DigestMismatchError(expected.algorithm);
    },
  });
}
