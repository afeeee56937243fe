// One bounded HTTP exchange over node:http: the body streamed with back-pressure and a known
// Content-Length, the response consumed chunk by chunk, the whole thing under one deadline.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { bodyChunks, type RequestBody } from "./body.ts";

export interface Exchange {
  status: number;
  headers: IncomingMessage["headers"];
  /** The response body as text when `keepBody` was set (small responses only), else "". */
  text: string;
  bodyBytes: number;
  /** From the first byte sent to the last byte received. */
  seconds: number;
}

export interface ExchangeOptions {
  method: string;
  url: string;
  headers: Headers;
  body?: RequestBody;
  timeoutMs: number;
  keepBody?: boolean;
  onResponse?: (headers: IncomingMessage["headers"]) => void;
  onChunk?: (chunk: Buffer) => void;
}

function headerObject(headers: Headers, body: RequestBody | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = value;
  });
  if (body !== undefined) {
    out["content-type"] = body.contentType;
    out["content-length"] = String(body.length);
  }
  return out;
}

export function exchange(options: ExchangeOptions): Promise<Exchange> {
  const url = new URL(options.url);
  const started = performance.now();
  return new Promise<Exchange>((resolve, reject) => {
    const request = httpRequest({
      host: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      method: options.method,
      headers: headerObject(options.headers, options.body),
    });
    const timer = setTimeout(() => {
      request.destroy(new Error(`${options.method} ${url.pathname} timed out after ${options.timeoutMs / 1000} s`));
    }, options.timeoutMs);
    const fail = (error: unknown) => {
      clearTimeout(timer);
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    let answered = false;
    // A server that answers early (e.g. 413) may reset the upload; its answer still counts.
    request.on("error", (error) => {
      if (!answered) fail(error);
    });
    request.on("response", (response) => {
      answered = true;
      options.onResponse?.(response.headers);
      const kept: Buffer[] = [];
      let bodyBytes = 0;
      response.on("data", (chunk: Buffer) => {
        bodyBytes += chunk.length;
        options.onChunk?.(chunk);
        if (options.keepBody) kept.push(chunk);
      });
      response.on("error", fail);
      response.on("end", () => {
        clearTimeout(timer);
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(kept).toString("utf8"),
          bodyBytes,
          seconds: (performance.now() - started) / 1000,
        });
      });
    });
    void sendBody(request, options.body).catch((error: unknown) => request.destroy(error instanceof Error ? error : new Error(String(error))));
  });
}

async function sendBody(request: ReturnType<typeof httpRequest>, body: RequestBody | undefined): Promise<void> {
  if (body !== undefined) {
    for await (const chunk of bodyChunks(body)) {
      if (request.destroyed) return;
      if (!request.write(chunk)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            request.off("drain", done);
            request.off("close", done);
            resolve();
          };
          request.on("drain", done);
          request.on("close", done);
        });
      }
    }
  }
  if (!request.destroyed) request.end();
}

/** The response as JSON, or an error naming the status and problem code. */
export function expectJson<T>(result: Exchange, status: number, what: string): T {
  if (result.status !== status) {
    throw new Error(`${what}: HTTP ${result.status} (expected ${status})${result.text ? `: ${result.text.slice(0, 500)}` : ""}`);
  }
  return JSON.parse(result.text) as T;
}
