// One logical API call: signs each attempt afresh, retries what is worth retrying (retry.ts)
// with the same Idempotency-Key, and turns an error answer into a PubsetError.
import { errorFromResponse, PubsetNetworkError, UploadSourceError } from "./errors.ts";
import { countingStream } from "./progress.ts";
import { DEFAULT_RETRY, isFinalAnswer, isRetryableStatus, parseRetryAfter, retryDelayMs, sleep, type RetryPolicy } from "./retry.ts";
import { signedHeaders, type SigningKey } from "./request-signing.ts";
import type { ProgressCallback } from "./types.ts";

/** A request body that can be produced again for every attempt, with its digest known up front. */
export interface RequestBody {
  contentType: string;
  /** Exact length in bytes. */
  length: number;
  /** The Content-Digest field value (RFC 9530), e.g. `sha-256=:…:`. */
  contentDigest: string;
  /** A fresh stream of the same bytes. */
  open(): ReadableStream<Uint8Array>;
}

export interface TransportOptions {
  key?: SigningKey;
  fetch?: typeof fetch;
  retry?: Partial<RetryPolicy>;
  /** Send request bodies as streams (default: yes, except in browsers, where most engines
   * cannot stream uploads over HTTP/1.1; there the body is collected into a Blob first). */
  streamUploads?: boolean;
  /** A D1 bookmark to start from (from an earlier session, e.g. the CLI's state file). */
  bookmark?: string;
}

/** D1 bookmarks sort oldest to newest as strings, so the newest is the greatest. */
export function newerBookmark(current: string | undefined, seen: string | null): string | undefined {
  if (seen === null || seen === "") return current;
  return current === undefined || seen > current ? seen : current;
}

export interface SendSpec {
  method: "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";
  url: string;
  headers?: Record<string, string>;
  body?: RequestBody;
  /** Sent on every attempt, so the server can replay rather than repeat a write (docs/api.md). */
  idempotencyKey?: string;
  signal?: AbortSignal;
  onProgress?: ProgressCallback;
  /** Retries for this request instead of the policy's (0: one attempt; the caller recovers). */
  retries?: number;
}

export class Transport {
  readonly signing: boolean;
  private readonly key: SigningKey | undefined;
  private readonly fetchImpl: typeof fetch;
  private readonly policy: RetryPolicy;
  private readonly streamUploads: boolean;
  /** The newest X-D1-Bookmark any response carried; sent on every request, so this client
   * reads its own writes even from a lagging read replica (docs/edge-and-caching.md). */
  bookmark: string | undefined;

  constructor(options: TransportOptions = {}) {
    this.key = options.key;
    this.signing = options.key !== undefined;
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.policy = { ...DEFAULT_RETRY, ...options.retry };
    this.streamUploads = options.streamUploads ?? !("document" in globalThis);
    this.bookmark = options.bookmark;
  }

  /** The successful (2xx or 304) response; throws PubsetError or PubsetNetworkError. */
  async send(spec: SendSpec): Promise<Response> {
    for (let retry = 0; ; retry++) {
      const last = retry >= (spec.retries ?? this.policy.retries);
      const init = await this.init(spec);
      let response: Response;
      try {
        response = await this.fetchImpl(spec.url, init);
      } catch (error: unknown) {
        if (spec.signal?.aborted) throw spec.signal.reason;
        const fatal = findCause(error, UploadSourceError);
        if (fatal) throw fatal;
        if (last) throw new PubsetNetworkError(`${spec.method} ${spec.url}: ${describe(error)}`, retry + 1, error, spec.url);
        await sleep(retryDelayMs(retry, null, this.policy), spec.signal);
        continue;
      }
      this.bookmark = newerBookmark(this.bookmark, response.headers.get("x-d1-bookmark"));
      if (response.ok || response.status === 304) return response;
      if (!last && isRetryableStatus(response.status) && !(await isFinalAnswer(response))) {
        await response.body?.cancel();
        await sleep(retryDelayMs(retry, parseRetryAfter(response.headers.get("retry-after")), this.policy), spec.signal);
        continue;
      }
      throw await errorFromResponse(response);
    }
  }

  private async init(spec: SendSpec): Promise<RequestInit> {
    const headers = new Headers(spec.headers);
    if (this.bookmark !== undefined) headers.set("x-d1-bookmark", this.bookmark);
    if (spec.idempotencyKey !== undefined) headers.set("idempotency-key", spec.idempotencyKey);
    const body = spec.body;
    if (body) {
      headers.set("content-type", body.contentType);
      headers.set("content-length", String(body.length));
      headers.set("content-digest", body.contentDigest);
    }
    const signed = this.key ? await signedHeaders(spec.method, spec.url, headers, this.key, body !== undefined) : headers;
    const init: RequestInit = { method: spec.method, headers: signed, signal: spec.signal };
    if (!body) return init;
    const progress = spec.onProgress;
    // After the last byte the server still works (validates, commits): "processing" says so.
    const stream = progress
      ? body.open().pipeThrough(
          countingStream((loaded) => {
            progress({ phase: "upload", loaded, total: body.length });
            if (loaded >= body.length) progress({ phase: "processing", loaded, total: body.length });
          }),
        )
      : body.open();
    if (!this.streamUploads) return { ...init, body: await new Response(stream).blob() };
    // Fetch in Node and Workers needs `duplex: "half"` for a stream body; DOM typings lack it.
    return Object.assign(init, { body: stream, duplex: "half" });
  }
}

/** `error` or the first error in its `cause` chain that is an instance of `type`. */
function findCause<T extends Error>(error: unknown, type: new (...args: never[]) => T): T | null {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth++) {
    if (current instanceof type) return current;
  }
  return null;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
  return `${error.message}${cause}`;
}
