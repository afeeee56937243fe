// Shared by the multipart tests: byte streams cut into chosen chunks, and a
// consumer that reads every part of a parse into plain data to compare.

import { parseMultipart } from "../src/write/multipart/index.ts";
import type { MultipartLimits, MultipartPart } from "../src/write/multipart/index.ts";

export const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

export function concat(...pieces: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/** A pull stream over `bytes`, cut at the sizes `nextSize` returns (each ≥ 1). */
export function chunkedStream(bytes: Uint8Array, nextSize: () => number = () => bytes.length): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (at >= bytes.length) return controller.close();
        const size = Math.max(1, nextSize());
        // A fresh copy per chunk, as a network source would deliver.
        controller.enqueue(bytes.slice(at, at + size));
        at += size;
      },
    },
    { highWaterMark: 0 },
  );
}

export interface ReadPart {
  name: string;
  fileName: string | null;
  contentType: string | null;
  mediaType: string | null;
  /** Null when the consumer skipped the body. */
  body: Uint8Array | null;
}

export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const pieces: Uint8Array[] = [];
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) pieces.push(r.value);
  return concat(...pieces);
}

/** Reads every part; `skip(i)` may leave the i-th body unread or cancel it instead. */
export async function readParts(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  options: { limits?: MultipartLimits; skip?: (index: number) => "read" | "leave" | "cancel" } = {},
): Promise<ReadPart[]> {
  const out: ReadPart[] = [];
  let index = 0;
  for await (const part of parseMultipart(body, boundary, options.limits)) {
    const how = options.skip?.(index++) ?? "read";
    if (how === "cancel") await part.body.cancel();
    out.push({ ...headersOf(part), body: how === "read" ? await readAll(part.body) : null });
  }
  return out;
}

function headersOf(part: MultipartPart): Omit<ReadPart, "body"> {
  return { name: part.name, fileName: part.fileName, contentType: part.contentType, mediaType: part.mediaType };
}

/** The rejection of `promise`, failing the test when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error: unknown) {
    return error;
  }
  throw new Error("expected a rejection");
}
