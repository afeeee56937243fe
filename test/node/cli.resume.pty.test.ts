// A resumed upload on a real terminal: `pubset create` of a two-chunk file in a pseudo-terminal
// (python's pty module: the CLI sees a TTY and draws its bar), Ctrl-C typed while the server
// holds the first chunk, then the `finish:` line it printed run as printed. The rerun says
// `resuming upload at … of … (… %)` and its bar starts there; after the Ctrl-C no bar is drawn
// below the interrupt message.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { e2eServer, type E2eServer } from "./helpers/shared-server.ts";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
// Runs argv[1:] on a new pty (100 columns) and copies its output to stdout; each line on stdin
// types Ctrl-C into it. Exits with the child's code (128 + signal when a signal ended it).
const PTY = `
import fcntl, os, pty, select, struct, sys, termios
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
inputs = [fd, 0]
while True:
    ready, _, _ = select.select(inputs, [], [])
    if 0 in ready:
        if os.read(0, 64): os.write(fd, b"\\x03")
        else: inputs.remove(0)
    if fd in ready:
        try: data = os.read(fd, 65536)
        except OSError: break
        if not data: break
        os.write(1, data)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
`;
const CHUNK = 32 * 1024 * 1024;

const dir = mkdtempSync(join(tmpdir(), "pubset-resume-pty-"));
let server: E2eServer & { stop(): Promise<void> };
let proxy: Server;
let proxyUrl = "";
let stallSecondPatch = true;
let patches = 0;
let secondPatchArrived: () => void = () => undefined;
const secondPatch = new Promise<void>((resolve) => (secondPatchArrived = resolve));

beforeAll(async () => {
  server = await e2eServer();
  // In front of the server (Host passed on as sent, so signatures over @authority verify): passes everything on, except that (until told otherwise) it holds
  // the second PATCH forever, so Ctrl-C comes while the server keeps the first chunk.
  proxy = createServer((incoming, outgoing) => {
    if (incoming.method === "PATCH" && ++patches === 2 && stallSecondPatch) {
      incoming.pause();
      secondPatchArrived();
      return;
    }
    const target = new URL(incoming.url ?? "/", server.url);
    const forwarded = httpRequest(target, { method: incoming.method, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    forwarded.on("error", () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const address = proxy.address();
  proxyUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  // 40 MiB: one full chunk and a last one of 8 MiB, made the same way on both runs.
  const rows: string[] = ["id,name,score"];
  let size = 14;
  for (let i = 0; size < 40 * 1024 * 1024; i++) {
    const row = `${i},name ${(i * 7919) % 10007},${(i * 31) % 997}.5`;
    rows.push(row);
    size += row.length + 1;
  }
  writeFileSync(join(dir, "big.csv"), rows.join("\n") + "\n");
}, 180_000);

afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface PtyRun {
  output: () => string;
  interrupt(): void;
  exited: Promise<number>;
}

function onTerminal(args: string[]): PtyRun {
  const env = { ...process.env, PUBSET_KEY_ID: server.demoKey.key_id, PUBSET_SECRET: server.demoKey.secret, PUBSET_CONFIG: join(dir, "none.json"), PUBSET_URL: "", HOME: dir };
  const child = spawn("python3", ["-c", PTY, process.execPath, MAIN, ...args], { cwd: dir, env, stdio: ["pipe", "pipe", "inherit"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  return {
    output: () => output,
    interrupt: () => child.stdin.write("\n"),
    exited: new Promise((resolve) => child.on("exit", (code) => resolve(code ?? -1))),
  };
}

/** `promise`, or a failure showing what the terminal printed so far. */
function within<T>(promise: Promise<T>, ms: number, run: PtyRun, what: string): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} within ${ms} ms; the terminal shows:\n${run.output()}`)), ms))]);
}

it("Ctrl-C keeps the first chunk; the rerun says where it resumes and its bar starts there", async () => {
  const first = onTerminal(["create", "big.csv", "--name", "Resumed", "--resumable-above", "1000000", "--url", proxyUrl]);
  await within(secondPatch, 60_000, first, "the second chunk was not sent");
  await new Promise((resolve) => setTimeout(resolve, 500));
  first.interrupt();
  expect(await within(first.exited, 10_000, first, "pubset did not exit after Ctrl-C")).toBe(130);
  const printed = first.output();
  const message = printed.indexOf("pubset: interrupted");
  expect(message, printed).toBeGreaterThan(0);
  // The bar was drawn before the message, and nothing redraws it after.
  expect(printed.slice(0, message)).toContain("upload ");
  expect(printed.slice(message)).not.toContain("\r\x1b[2K");
  const finish = /finish: (pubset create big\.csv .*--idempotency-key [0-9a-f-]{36})\r?\n/.exec(printed)?.[1];
  expect(finish, printed).toBeDefined();

  stallSecondPatch = false;
  const args = finish!.replace(/^pubset /, "").split(" ");
  const second = onTerminal(args);
  expect(await within(second.exited, 60_000, second, "the rerun did not finish"), second.output()).toBe(0);
  const rerun = second.output();
  const resuming = /resuming upload at (\d+\.\d) MiB of (\d+\.\d) MiB \((\d+) %\)\r?\n/.exec(rerun);
  expect(resuming, rerun).not.toBeNull();
  // Where the first chunk ended: 32 MiB of compressed input, cut at a record's end.
  const [at, of, percent] = [Number(resuming![1]), Number(resuming![2]), Number(resuming![3])];
  expect(at).toBeGreaterThan(30);
  expect(at).toBeLessThanOrEqual(CHUNK / 1024 / 1024);
  expect(of).toBeCloseTo(40, 0);
  expect(percent).toBe(Math.floor((at / of) * 100));
  // The first upload bar drawn after the message is already at least that far.
  const firstBar = /upload +\[[# ]+\] +(\d+)%/.exec(rerun.slice(resuming!.index));
  expect(Number(firstBar?.[1])).toBeGreaterThanOrEqual(percent);
  expect(rerun).toMatch(/^id\s+[0-9a-f-]{36}\r?$/m);
});
