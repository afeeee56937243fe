// Resumable uploads through the worker's fetch handler, signed as a client signs them: create
// the upload resource, PATCH chunks, HEAD its offset (docs/resumable-uploads.md).
import { expect } from "vitest";
import { signRequest } from "../../src/wire/sign.ts";
import type { TestKey } from "./keys.ts";
import { ORIGIN, send } from "./http.ts";

const encoder = new TextEncoder();

export interface Creation {
  collection?: Record<string, unknown>;
  fileName?: string;
  contentType?: "text/csv" | "application/gzip";
}

/** Starts an upload with `Upload-Complete: ?0`; returns the upload resource's path. */
export async function startUpload(key: TestKey, method: "POST" | "PUT", path: string, creation: Creation, headers: Record<string, string> = {}): Promise<string> {
  const response = await startUploadResponse(key, method, path, creation, headers);
  if (response.status !== 201) throw new Error(`upload creation failed: ${response.status} ${await response.text()}`);
  expect(response.headers.get("upload-offset")).toBe("0");
  return response.headers.get("location")!;
}

export function startUploadResponse(key: TestKey | undefined, method: "POST" | "PUT", path: string, creation: Creation, headers: Record<string, string> = {}) {
  return send(method, path, {
    key,
    body: encoder.encode(JSON.stringify(creation)),
    headers: { "Content-Type": "application/json", "Upload-Complete": "?0", ...headers },
  });
}

export function patchChunk(key: TestKey | undefined, location: string, offset: number, chunk: Uint8Array | string, complete: boolean) {
  const body = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
  return send("PATCH", location, {
    key,
    body,
    headers: { "Content-Type": "application/partial-upload", "Upload-Offset": String(offset), "Upload-Complete": complete ? "?1" : "?0" },
  });
}

export async function uploadOffset(key: TestKey, location: string): Promise<number> {
  const response = await send("HEAD", location, { key });
  expect(response.status).toBe(204);
  return Number(response.headers.get("upload-offset"));
}

/** Sends `content` in chunks cut at `cuts` (byte offsets); returns the final response. */
export async function uploadInChunks(key: TestKey, location: string, content: Uint8Array, cuts: number[]): Promise<Response> {
  const bounds = [0, ...cuts.filter((c) => c > 0 && c < content.length).sort((a, b) => a - b), content.length];
  let response: Response | null = null;
  for (let i = 0; i + 1 < bounds.length; i++) {
    const last = i + 2 === bounds.length;
    response = await patchChunk(key, location, bounds[i]!, content.subarray(bounds[i]!, bounds[i + 1]!), last);
    if (!last) {
      if (response.status !== 204) throw new Error(`chunk ${i} failed: ${response.status} ${await response.text()}`);
      expect(response.headers.get("upload-offset")).toBe(String(bounds[i + 1]));
    }
  }
  return response!;
}

/**
 * A signed PATCH whose signature and Content-Digest cover `bytes`, sent with `body` instead when
 * given: a stream that breaks off, or one whose length is not known up front (no Content-Length).
 */
export async function signedPatch(
  key: TestKey,
  location: string,
  offset: number,
  bytes: Uint8Array,
  complete: boolean,
  body: ReadableStream<Uint8Array> | Uint8Array = bytes,
): Promise<Request> {
  const url = ORIGIN + location;
  const headers = await signRequest(
    {
      method: "PATCH",
      url,
      headers: new Headers({ "Content-Type": "application/partial-upload", "Upload-Offset": String(offset), "Upload-Complete": complete ? "?1" : "?0" }),
      body: bytes,
    },
    { keyId: key.keyId, secret: key.secret },
  );
  return new Request(url, { method: "PATCH", headers, body, duplex: "half" } as RequestInit);
}
