// What the CLI must not do to its user (issue 13): delete without asking on a terminal, save a
// download wherever a server's file name points, or leave temp files and doubt after Ctrl-C.
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcess, terminalInput, type CliRun } from "./cli.helpers.ts";
import { e2eServer, type E2eServer } from "./helpers/shared-server.ts";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "pubset-cli-safety-"));
let server: E2eServer & { stop(): Promise<void> };
let signedEnv: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await e2eServer();
  signedEnv = { PUBSET_URL: server.url, PUBSET_CONFIG: join(dir, "none.json"), PUBSET_KEY_ID: server.demoKey.key_id, PUBSET_SECRET: server.demoKey.secret };
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function pubsetProcess(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args], { cwd, env: { ...process.env, PUBSET_KEY_ID: "", PUBSET_SECRET: "", ...env } }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 128, stdout, stderr });
    });
  });
}

describe("pubset rm", () => {
  async function created(name: string): Promise<string> {
    writeFileSync(join(dir, "rm.csv"), "a,b\n1,2\n");
    const run = await runInProcess(["create", join(dir, "rm.csv"), "--name", name, "--json"], signedEnv);
    expect(run.code, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { id: string }).id;
  }

  it("on a terminal asks first, names the dataset, and deletes nothing unless told yes", async () => {
    const id = await created("Keep me");
    const declined = await runInProcess(["rm", id], signedEnv, terminalInput("n\n"));
    expect(declined.code).toBe(1);
    expect(declined.stderr).toContain(`Delete "Keep me" (${id})`);
    expect(declined.stderr).toContain("nothing deleted");
    expect((await runInProcess(["get", id], signedEnv)).code).toBe(0);

    const declinedJson = await runInProcess(["rm", id, "--json"], signedEnv, terminalInput("\n"));
    expect(declinedJson.code).toBe(1);
    expect(JSON.parse(declinedJson.stdout)).toEqual({ id, deleted: false });

    // Ctrl-D (input ends before a line) is a no, not a hang.
    expect((await runInProcess(["rm", id], signedEnv, terminalInput("y"))).code).toBe(1);

    const confirmed = await runInProcess(["rm", id], signedEnv, terminalInput("y\n"));
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect((await runInProcess(["get", id], signedEnv)).code).toBe(2);
  });

  it("--yes deletes on a terminal without asking", async () => {
    const id = await created("Delete me");
    const run = await runInProcess(["rm", id, "--yes"], signedEnv, terminalInput(""));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("Delete");
    expect((await runInProcess(["get", id], signedEnv)).code).toBe(2);
  });
});

describe("pubset download without -o", () => {
  let hostile: Server;
  let hostileUrl = "";
  const gz = gzipSync("a,b\n1,2\n");

  beforeAll(async () => {
    // A server that names its file with directory steps, percent-encoded and plain.
    hostile = createServer((request, response) => {
      const path = new URL(request.url ?? "/", "http://x").pathname;
      if (path.endsWith(".gz")) {
        response.writeHead(200, { "Content-Type": "application/gzip", "Content-Length": gz.length });
        response.end(gz);
        return;
      }
      const name = path.split("/")[3] === "encoded" ? "..%2F..%2Fescaped.csv.gz" : "%2E%2E%5C%2E%2E%5Cbackslash.csv.gz";
      response.writeHead(200, { "Content-Type": "application/json", Link: `</v1/dataset/x/v/${name}>; rel="enclosure"; type="application/gzip"` });
      response.end("{}");
    });
    await new Promise<void>((resolve) => hostile.listen(0, "127.0.0.1", resolve));
    const address = hostile.address();
    hostileUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  });
  afterAll(() => new Promise<void>((resolve) => hostile.close(() => resolve())));

  it.each([
    ["encoded", "escaped.csv.gz"],
    ["backslash", "backslash.csv.gz"],
  ])("keeps only a safe base name of a server's %s name, inside the working directory", async (id, expected) => {
    const work = join(dir, `dl-${id}`, "a", "b");
    mkdirSync(work, { recursive: true });
    const run = await pubsetProcess(["download", id, "--url", hostileUrl], {}, work);
    expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(work)).toEqual([expected]);
    expect(readdirSync(join(dir, `dl-${id}`))).toEqual(["a"]);
    expect(existsSync(join(dir, `dl-${id}`, expected))).toBe(false);
  });
});

describe("Ctrl-C during an upload (a real process and SIGINT)", () => {
  // A server that takes the request and then never answers: it reads the whole body
  // ("after sending") or none of it ("while sending").
  let stalling: Server;
  let stallingUrl = "";
  const received = new Map<string, Promise<void>>();
  const arrived: Record<string, () => void> = {};

  beforeAll(async () => {
    for (const mode of ["read", "stall"]) received.set(mode, new Promise<void>((resolve) => (arrived[mode] = resolve)));
    stalling = createServer((request) => {
      const mode = request.url?.includes("/read-all") ? "read" : "stall";
      if (mode === "read") {
        request.on("data", () => undefined);
        request.on("end", () => arrived.read?.());
      } else {
        request.pause();
        arrived.stall?.();
      }
    });
    await new Promise<void>((resolve) => stalling.listen(0, "127.0.0.1", resolve));
    const address = stalling.address();
    stallingUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  });
  afterAll(() => {
    stalling.closeAllConnections();
    return new Promise<void>((resolve) => stalling.close(() => resolve()));
  });

  async function interrupted(mode: "read" | "stall" | "compress", file: string): Promise<{ run: CliRun; temp: string }> {
    const temp = mkdtempSync(join(dir, "tmp-"));
    const id = mode === "read" ? "read-all" : "stall";
    const child = spawn(process.execPath, [MAIN, "append", id, file, "--url", stallingUrl], {
      cwd: dir,
      env: { ...process.env, TMPDIR: temp, PUBSET_CONFIG: join(dir, "none.json"), PUBSET_KEY_ID: "pk_x", PUBSET_SECRET: "s" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const exited = new Promise<number>((resolve) => child.on("exit", (code, signal) => resolve(code ?? (signal === "SIGINT" ? -2 : -1))));
    if (mode === "compress") {
      // The spool appears when compression starts; interrupt while it runs.
      while (!readdirSync(temp).some((name) => name.startsWith("pubset-upload-"))) await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setTimeout(resolve, 100));
    } else {
      await received.get(mode);
      // "stall": the client has filled the socket's buffers and waits; "read": it waits for an answer.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    child.kill("SIGINT");
    const code = await exited;
    return { run: { code, stdout, stderr }, temp };
  }

  it("after the whole body was sent: says the write may have landed, how to check and finish, and leaves no temp file", async () => {
    writeFileSync(join(dir, "small.csv"), "1,2\n3,4\n");
    const { run, temp } = await interrupted("read", "small.csv");
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toContain("may have landed");
    expect(run.stderr).toContain("check:  pubset versions read-all");
    expect(run.stderr).toMatch(/finish: pubset append read-all small\.csv --url \S+ --idempotency-key [0-9a-f-]{36}/);
    expect(readdirSync(temp)).toEqual([]);
  });

  it("while compressing: stops, says nothing was sent, and leaves no temp file", async () => {
    // 64 MB of random hex takes seconds to compress, long enough to be caught in the act.
    writeFileSync(join(dir, "slow.csv"), randomBytes(32 * 1024 * 1024).toString("hex"));
    const { run, temp } = await interrupted("compress", "slow.csv");
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toContain("before the upload was sent; nothing was written");
    expect(readdirSync(temp)).toEqual([]);
  });

  it("before the body was all sent: says nothing was written, and leaves no temp file", async () => {
    // Already gzip, so sent as it is; random, so far larger than the sockets' buffers.
    writeFileSync(join(dir, "big.csv.gz"), randomBytes(48 * 1024 * 1024));
    const { run, temp } = await interrupted("stall", "big.csv.gz");
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toContain("nothing was written");
    expect(run.stderr).not.toContain("may have landed");
    expect(readdirSync(temp)).toEqual([]);
  });
});
