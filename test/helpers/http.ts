// Requests through the worker's real fetch handler: anonymous, or signed with a test key
// exactly as a client would sign them (RFC 9421 + RFC 9530).
import { exports } from "cloudflare:workers";
import { signRequest } from "../../src/wire/sign.ts";
import type { TestKey } from "./keys.ts";

export const ORIGIN = "https://pubset.test";

export interface Part {
  name: string;
  value: string | Uint8Array;
  fileName?: string;
  contentType?: string;
}

/** A multipart/form-data body built by hand so tests control every byte and header. */
export function multipart(parts: Part[], boundary = "pubset-test-boundary-" + Math.random().toString(36).slice(2)) {
  const encoder = new TextEncoder();
  const chunks: Uint8Array[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.fileName !== undefined) head += `; filename="${part.fileName}"`;
    head += "\r\n";
    if (part.contentType) head += `Content-Type: ${part.contentType}\r\n`;
    head += "\r\n";
    chunks.push(encoder.encode(head));
    chunks.push(typeof part.value === "string" ? encoder.encode(part.value) : part.value);
    chunks.push(encoder.encode("\r\n"));
  }
  chunks.push(encoder.encode(`--${boundary}--\r\n`));
  const length = chunks.reduce((n, c) => n + c.length, 0);
  const body = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.length;
  }
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

export function collectionPart(collection: unknown): Part {
  return { name: "collection", value: JSON.stringify(collection), contentType: "application/json" };
}

export function csvPart(csv: string | Uint8Array, fileName = "data.csv", contentType = "text/csv"): Part {
  return { name: "dataset", value: csv, fileName, contentType };
}

export interface SendOptions {
  key?: TestKey;
  headers?: Record<string, string>;
  body?: Uint8Array;
  /** Applied to the signed headers before sending, to test tampering. */
  tamper?: (headers: Headers) => void;
  /** `manual` to see a 3xx itself; the worker's fetch follows redirects by default. */
  redirect?: "follow" | "manual";
}

export async function send(method: string, path: string, options: SendOptions = {}): Promise<Response> {
  const url = path.startsWith("http") ? path : ORIGIN + path;
  let headers = new Headers(options.headers);
  if (options.key) {
    headers = await signRequest({ method, url, headers, body: options.body }, { keyId: options.key.keyId, secret: options.key.secret });
  }
  options.tamper?.(headers);
  return exports.default.fetch(new Request(url, { method, headers, body: options.body, redirect: options.redirect }));
}

/** A signed multipart write. */
export async function write(method: "POST" | "PUT", path: string, key: TestKey | undefined, parts: Part[], headers: Record<string, string> = {}) {
  const { body, contentType } = multipart(parts);
  return send(method, path, { key, body, headers: { ...headers, "Content-Type": contentType } });
}

export async function createDataset(key: TestKey, csv: string, collection: Record<string, unknown> = { name: "Test" }, fileName = "data.csv") {
  const response = await write("POST", "/v1/dataset", key, [collectionPart(collection), csvPart(csv, fileName)]);
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown> & { id: string; version: string; source: string };
}

export async function appendRows(key: TestKey, id: string, csv: string, headers: Record<string, string> = {}) {
  return write("POST", `/v1/dataset/${id}`, key, [csvPart(csv)], headers);
}

export async function download(path: string, key?: TestKey): Promise<Response> {
  return send("GET", path, { key });
}

export async function gunzipText(response: Response): Promise<string> {
  const stream = response.body!.pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).text();
}

export async function expectProblem(response: Response, status: number, code: string): Promise<Record<string, unknown>> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`expected ${status} ${code}, got ${response.status}: ${text}`);
  if (!response.headers.get("content-type")?.startsWith("application/problem+json")) throw new Error(`not problem+json: ${text}`);
  const body = JSON.parse(text) as Record<string, unknown>;
  if (body.code !== code) throw new Error(`expected code ${code}, got ${String(body.code)}: ${text}`);
  return body;
}
