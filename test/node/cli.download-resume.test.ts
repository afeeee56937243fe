// `pubset download` resumes an interrupted download from FILE.part, against a real `npm start`:
// a proxy in front of it drops the connection part-way through the body, the same command run
// again asks only for the rest (Range + If-Range) and the file ends byte-identical; when the
// ETag no longer matches, the server sends the whole file and the CLI starts over.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, request, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcess } from "./cli.helpers.ts";
import { e2eServer, type E2eServer } from "./helpers/shared-server.ts";

const dir = mkdtempSync(join(tmpdir(), "pubset-download-resume-"));
let server: E2eServer & { stop(): Promise<void> };
let proxy: CuttingProxy;
let created: { id: string; source: string };
let csv: string;

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
  status: number;
}

/** Forwards to the server; while `cutAfter` is set, ends each file body after that many bytes. */
class CuttingProxy {
  cutAfter: number | null = null;
  /** Runs before a cut closes the connection. */
  beforeCut: () => Promise<void> = async () => {};
  readonly seen: Seen[] = [];
  readonly #server: Server;
  url = "";

  constructor(target: string) {
    const upstream = new URL(target);
    this.#server = createServer((req, res) => {
      const forward = request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          this.seen.push({ path: req.url ?? "", headers: req.headers, status: answer.statusCode ?? 0 });
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          const limit = /\.(gz|csv)$/.test(req.url ?? "") ? this.cutAfter : null;
          let sent = 0;
          let cut = false;
          answer.on("data", (chunk: Buffer) => {
            if (cut) return;
            if (limit !== null && sent + chunk.length > limit) {
              // The bytes so far reach the client, then the connection closes short of Content-Length.
              // A stream that errors drops what its reader has not taken yet (fetch's body does),
              // so the close waits until the client has saved some of them.
              cut = true;
              answer.destroy();
              res.write(chunk.subarray(0, limit - sent), () => void this.beforeCut().finally(() => res.socket?.end()));
              return;
            }
            sent += chunk.length;
            res.write(chunk);
          });
          answer.on("end", () => {
            if (!cut) res.end();
          });
        },
      );
      req.pipe(forward);
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}

function table(rows: number): string {
  let text = "id,city,note\n";
  for (let i = 0; i < rows; i++) text += `${i},city ${(i * 7919) % 10007},"${(i * 104729).toString(36)} ${"xyz".repeat(i % 7)}"\n`;
  return text;
}

const NO_ENV_CONFIG = { PUBSET_URL: "", PUBSET_KEY_ID: "", PUBSET_SECRET: "" };
const viaProxy = () => ({ ...NO_ENV_CONFIG, PUBSET_URL: proxy.url, PUBSET_CONFIG: join(dir, "no-config.json"), HOME: dir });

beforeAll(async () => {
  server = await e2eServer();
  proxy = new CuttingProxy(server.url);
  await proxy.start();
  csv = table(60_000);
  writeFileSync(join(dir, "big.csv"), csv);
  const signed = { ...NO_ENV_CONFIG, PUBSET_URL: server.url, PUBSET_KEY_ID: server.demoKey.key_id, PUBSET_SECRET: server.demoKey.secret, PUBSET_CONFIG: join(dir, "no-config.json"), HOME: dir };
  const run = await runInProcess(["create", join(dir, "big.csv"), "--name", "Resume", "--public", "--json"], signed);
  if (run.code !== 0) throw new Error(run.stderr);
  created = JSON.parse(run.stdout) as { id: string; source: string };
});

afterAll(async () => {
  await proxy?.stop();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Resolves once `done()` holds, or after 10 s (the assertions after it then say what is missing). */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; waited < 10_000 && !done(); waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
}

async function full(path: string): Promise<Buffer> {
  const response = await fetch(server.url + path, { headers: { "accept-encoding": "identity" } });
  return Buffer.from(await response.arrayBuffer());
}

describe("pubset download resumes", () => {
  it.each([
    ["the stored .gz", "big.csv.gz"],
    ["the CSV", "big.csv"],
  ])("%s after a dropped connection, byte-identical", async (_label, name) => {
    const out = join(dir, `resumed-${name}`);
    const whole = await full(created.source);
    const expected = name.endsWith(".gz") ? whole : gunzipSync(whole);
    proxy.cutAfter = Math.floor(expected.length / 3);
    proxy.beforeCut = () => until(() => existsSync(`${out}.part`) && statSync(`${out}.part`).size > 0);
    const interrupted = await runInProcess(["download", created.id, "-o", out], viaProxy());
    expect(interrupted.code).not.toBe(0);
    const saved = statSync(`${out}.part`).size;
    expect(saved).toBeGreaterThan(0);
    expect(saved).toBeLessThan(expected.length);
    expect(existsSync(out)).toBe(false);

    proxy.cutAfter = null;
    const from = proxy.seen.length;
    const resumed = await runInProcess(["download", created.id, "-o", out], viaProxy());
    expect(resumed.code).toBe(0);
    expect(Buffer.compare(readFileSync(out), expected)).toBe(0);
    expect(existsSync(`${out}.part`) || existsSync(`${out}.part.json`)).toBe(false);
    const ranged = proxy.seen.slice(from).find((s) => s.headers.range !== undefined);
    expect(ranged?.headers.range).toBe(`bytes=${saved}-`);
    expect(ranged?.headers["if-range"]).toMatch(/^"/);
    expect(ranged?.status).toBe(206);
  });

  it("starts over when the saved part's ETag no longer names the file", async () => {
    const out = join(dir, "stale.csv.gz");
    const expected = await full(created.source);
    writeFileSync(`${out}.part`, Buffer.alloc(1000, 7));
    writeFileSync(`${out}.part.json`, JSON.stringify({ source: created.source, format: "gzip", etag: '"some-other-version.gz"' }));
    const from = proxy.seen.length;
    const run = await runInProcess(["download", created.id, "-o", out], viaProxy());
    expect(run.code).toBe(0);
    expect(Buffer.compare(readFileSync(out), expected)).toBe(0);
    const ranged = proxy.seen.slice(from).find((s) => s.headers.range !== undefined);
    expect(ranged?.status).toBe(200);
  });
});
