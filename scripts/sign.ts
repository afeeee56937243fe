// `npm run sign -- METHOD URL [--collection JSON] [--dataset FILE] [--body FILE] [--header "Name: value"]…`
// Sends one RFC 9421-signed request and prints the response, so the README's examples can be
// pasted and run. The key comes from PUBSET_KEY_ID/PUBSET_SECRET, else the demo key that
// `npm start` wrote to .pubset/demo-key.json. Files stream from disk twice — once for the
// Content-Digest, once to send — so memory stays flat whatever their size. The full client and
// CLI are separate.
import { createHash, randomBytes } from "node:crypto";
import { open, readFile, stat } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { basename } from "node:path";
import { newNonce, signComponents, signRequest } from "../src/wire/sign.ts";
import { requiredComponents } from "../src/wire/verify.ts";

const USAGE = `usage: npm run sign -- METHOD URL [--collection JSON] [--dataset FILE] [--body FILE] [--header "Name: value"]...
  --collection JSON   the multipart "collection" part (application/json)
  --dataset FILE      the multipart "dataset" part (text/csv, or application/gzip for *.gz)
  --body FILE         the body as it is (e.g. a resumable upload's chunk); set its Content-Type with --header
  --header H          an extra request header, e.g. --header 'If-Match: "<version>"'
key: PUBSET_KEY_ID and PUBSET_SECRET, else .pubset/demo-key.json (written by npm start)`;

interface Args {
  method: string;
  url: string;
  collection: string | null;
  dataset: string | null;
  body: string | null;
  headers: Array<[string, string]>;
}

function parseArgs(argv: string[]): Args | null {
  const positional: string[] = [];
  const args: Args = { method: "", url: "", collection: null, dataset: null, body: null, headers: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const value = argv[i + 1];
    if (arg === "--collection" && value !== undefined) (args.collection = value), i++;
    else if (arg === "--dataset" && value !== undefined) (args.dataset = value), i++;
    else if (arg === "--body" && value !== undefined) (args.body = value), i++;
    else if (arg === "--header" && value !== undefined && value.includes(":")) {
      const at = value.indexOf(":");
      args.headers.push([value.slice(0, at).trim(), value.slice(at + 1).trim()]);
      i++;
    } else if (arg.startsWith("--")) return null;
    else positional.push(arg);
  }
  if (positional.length !== 2) return null;
  args.method = (positional[0] ?? "").toUpperCase();
  args.url = positional[1] ?? "";
  return args;
}

async function loadKey(): Promise<{ keyId: string; secret: string }> {
  const keyId = process.env.PUBSET_KEY_ID;
  const secret = process.env.PUBSET_SECRET;
  if (keyId && secret) return { keyId, secret };
  const places = process.env.PUBSET_STATE_DIR ? [`${process.env.PUBSET_STATE_DIR}/demo-key.json`] : [".pubset/demo-key.json"];
  for (const path of places) {
    try {
      const saved = JSON.parse(await readFile(path, "utf8")) as { key_id: string; secret: string };
      return { keyId: saved.key_id, secret: saved.secret };
    } catch {
      // try the next place
    }
  }
  throw new Error("no key: set PUBSET_KEY_ID and PUBSET_SECRET, or run `npm start` once to make the demo key");
}

/** A body sent from disk: parts held in memory (the multipart framing, the collection) and files
 * streamed, so a file of any size costs what a read buffer does. */
type BodyPart = Uint8Array | { path: string; size: number };

interface Payload {
  parts: BodyPart[];
  length: number;
  contentType: string | null;
}

async function fileAsPart(path: string): Promise<BodyPart> {
  return { path, size: (await stat(path)).size };
}

/** RFC 7578 multipart/form-data with a "collection" and a "dataset" part, framed by hand so the
 * dataset's bytes can stream from the file. */
async function multipartPayload(args: Args): Promise<Payload | null> {
  if (args.collection === null && args.dataset === null) return null;
  const boundary = `pubset-${randomBytes(12).toString("hex")}`;
  const text = (value: string) => new TextEncoder().encode(value);
  const parts: BodyPart[] = [];
  if (args.collection !== null) {
    parts.push(text(`--${boundary}\r\nContent-Disposition: form-data; name="collection"\r\nContent-Type: application/json\r\n\r\n${args.collection}\r\n`));
  }
  if (args.dataset !== null) {
    const type = args.dataset.endsWith(".gz") ? "application/gzip" : "text/csv";
    const name = basename(args.dataset).replace(/["\r\n\\]/g, "_");
    parts.push(text(`--${boundary}\r\nContent-Disposition: form-data; name="dataset"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`));
    parts.push(await fileAsPart(args.dataset), text("\r\n"));
  }
  parts.push(text(`--${boundary}--\r\n`));
  return { parts, length: parts.reduce((sum, part) => sum + (part instanceof Uint8Array ? part.length : part.size), 0), contentType: `multipart/form-data; boundary=${boundary}` };
}

const READ_BYTES = 256 * 1024;

/** The body's bytes in order; file parts are read into `buffer` when given (the digest pass,
 * which reuses it) or into a fresh buffer per read (the send, which hands each one on). */
async function* partBytes(parts: BodyPart[], buffer?: Uint8Array): AsyncGenerator<Uint8Array> {
  for (const part of parts) {
    if (part instanceof Uint8Array) {
      yield part;
      continue;
    }
    const file = await open(part.path);
    try {
      for (;;) {
        const into = buffer ?? new Uint8Array(READ_BYTES);
        const { bytesRead } = await file.read(into, 0, into.length, null);
        if (bytesRead === 0) break;
        yield into.subarray(0, bytesRead);
      }
    } finally {
      await file.close();
    }
  }
}

/** `Content-Digest` (RFC 9530) of the body: one streamed pass over it before it is sent. */
async function digestOf(parts: BodyPart[]): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of partBytes(parts, new Uint8Array(READ_BYTES))) hash.update(chunk);
  return `sha-256=:${hash.digest("base64")}:`;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * Sends the request with node:http, writing each piece only once the last one left for the
 * socket, and reading files into two buffers used in turn — so memory stays flat (fetch would
 * need a fresh buffer per piece, which the GC frees only in large batches). A server that
 * answers before the body is all sent (a 413 on Content-Length) is listened to, and the rest
 * is not sent.
 */
function send(method: string, url: string, headers: Headers, parts: BodyPart[] | null): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const plain: Record<string, string> = {};
    headers.forEach((value, name) => (plain[name] = value));
    const request = (target.protocol === "https:" ? httpsRequest : httpRequest)(target, { method, headers: plain });
    let answered = false;
    request.on("response", (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (typeof value === "string") answerHeaders.set(name, value);
        resolve({ status: response.statusCode ?? 0, headers: answerHeaders, text: Buffer.concat(chunks).toString("utf8") });
        request.destroy();
      });
      response.on("error", reject);
    });
    request.on("error", (error) => {
      if (!answered) reject(error);
    });
    const write = async () => {
      if (parts !== null) {
        const buffers = [new Uint8Array(READ_BYTES), new Uint8Array(READ_BYTES)];
        let turn = 0;
        for (const part of parts) {
          const pieces = part instanceof Uint8Array ? [part] : partBytes([part], buffers[turn++ % 2]);
          for await (const piece of pieces) {
            if (answered || request.destroyed) return;
            // The callback runs once the piece is handed to the socket: its buffer is free again.
            await new Promise<void>((done, fail) => request.write(piece, (error) => (error ? fail(error) : done())));
          }
        }
      }
      request.end();
    };
    write().catch((error: unknown) => {
      if (!answered) reject(error);
    });
  });
}

/** What to run instead when the body is over the server's one-request limit. */
function resumableAdvice(args: Args): string {
  const path = new URL(args.url).pathname;
  const file = args.dataset ?? args.body ?? "FILE";
  const id = /^\/v1\/dataset\/([^/]+)$/.exec(path)?.[1];
  let name = "NAME";
  try {
    name = String((JSON.parse(args.collection ?? "{}") as { name?: unknown }).name ?? "NAME");
  } catch {
    // not JSON: the server will say so; the advice keeps the placeholder
  }
  const quote = (word: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`);
  if (id === undefined) return `npx pubset create ${quote(file)} --name ${quote(name)} --url ${new URL(args.url).origin}`;
  return `npx pubset ${args.method === "PUT" ? "update" : "append"} ${id} ${quote(file)} --url ${new URL(args.url).origin}`;
}

function formatMiB(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (!args) {
    console.error(USAGE);
    return 1;
  }
  const key = await loadKey();
  const payload: Payload | null = args.body !== null ? { parts: [await fileAsPart(args.body)], length: (await stat(args.body)).size, contentType: null } : await multipartPayload(args);
  const headers = new Headers(args.headers);
  if (payload?.contentType) headers.set("Content-Type", payload.contentType);
  let signed: Headers;
  if (payload) {
    headers.set("Content-Digest", await digestOf(payload.parts));
    headers.set("Content-Length", String(payload.length));
    const method = args.method;
    const components = requiredComponents(new URL(args.url), true, headers);
    signed = await signComponents({ method, url: args.url, headers }, components, { created: Math.floor(Date.now() / 1000), keyid: key.keyId, nonce: newNonce() }, key);
  } else {
    signed = await signRequest({ method: args.method, url: args.url, headers }, key);
  }
  let response: Answer;
  try {
    response = await send(args.method, args.url, signed, payload?.parts ?? null);
  } catch (error: unknown) {
    throw new Error(`${args.method} ${args.url}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const shown = ["location", "upload-offset", "upload-complete", "upload-limit"].filter((name) => response.headers.has(name));
  console.error([`HTTP ${response.status}`, ...shown.map((name) => `${name}: ${response.headers.get(name)}`)].join("  "));
  const text = response.text;
  if (text) console.log(text);
  if (response.status === 413) {
    let limit: unknown;
    try {
      limit = (JSON.parse(text) as { limit?: unknown }).limit;
    } catch {
      limit = undefined;
    }
    const limitText = typeof limit === "number" ? `at most ${formatMiB(limit)} (${limit} bytes)` : "less";
    console.error(`The server takes ${limitText} in one request; this one had ${formatMiB(payload?.length ?? 0)}.`);
    console.error(`The CLI sends a file this large as a resumable upload, in chunks:\n  ${resumableAdvice(args)}`);
  }
  return response.status >= 200 && response.status < 300 ? 0 : 2;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(2);
  },
);
