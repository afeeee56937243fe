// `npm run sign -- METHOD URL [--collection JSON] [--dataset FILE] [--body FILE] [--header "Name: value"]…`
// Sends one RFC 9421-signed request and prints the response, so the README's examples can be
// pasted and run. The key comes from PUBSET_KEY_ID/PUBSET_SECRET, else the demo key that
// `npm start` wrote to .pubset/demo-key.json. The full client and CLI are separate.
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { bufferSource } from "../src/wire/bytes.ts";
import { signRequest } from "../src/wire/sign.ts";

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

async function multipartBody(args: Args): Promise<{ body: Uint8Array; contentType: string } | null> {
  if (args.collection === null && args.dataset === null) return null;
  const form = new FormData();
  if (args.collection !== null) form.append("collection", new Blob([args.collection], { type: "application/json" }));
  if (args.dataset !== null) {
    const bytes = await readFile(args.dataset);
    const type = args.dataset.endsWith(".gz") ? "application/gzip" : "text/csv";
    form.append("dataset", new Blob([bytes], { type }), basename(args.dataset));
  }
  const request = new Request("http://local/", { method: "POST", body: form });
  return { body: new Uint8Array(await request.arrayBuffer()), contentType: request.headers.get("content-type") ?? "" };
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (!args) {
    console.error(USAGE);
    return 1;
  }
  const key = await loadKey();
  const payload = args.body !== null ? { body: new Uint8Array(await readFile(args.body)), contentType: null } : await multipartBody(args);
  const headers = new Headers(args.headers);
  if (payload?.contentType) headers.set("Content-Type", payload.contentType);
  const signed = await signRequest({ method: args.method, url: args.url, headers, body: payload?.body }, key);
  const body = payload ? bufferSource(payload.body) : undefined;
  const response = await fetch(args.url, { method: args.method, headers: signed, body });
  const shown = ["location", "upload-offset", "upload-complete", "upload-limit"].filter((name) => response.headers.has(name));
  console.error([`HTTP ${response.status}`, ...shown.map((name) => `${name}: ${response.headers.get(name)}`)].join("  "));
  const text = await response.text();
  if (text) console.log(text);
  return response.ok ? 0 : 2;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(2);
  },
);
