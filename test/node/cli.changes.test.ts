// `pubset changes` and `pubset webhooks` against a real `npm start`, and the README's worked
// receiver run as printed: a webhook added with the CLI delivers, through the local queue, to
// that receiver, which verifies with the standardwebhooks package.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { verifyWebhook } from "../../src/client/index.ts";
import { runInProcess, type CliRun } from "./cli.helpers.ts";
import { readDoc, section } from "./helpers/markdown.ts";
import { PROJECT_ROOT } from "./helpers/run-script.ts";
import { e2eServer, type SharedServer } from "./helpers/shared-server.ts";
import { startWebhookReceiver } from "./helpers/webhook-receiver.ts";

// Inside the checkout, so the receiver's `import "standardwebhooks"` resolves as in a project that installed it.
const dir = mkdtempSync(join(PROJECT_ROOT, ".cli-changes-"));
let server: SharedServer & { stop(): Promise<void> };
let env: NodeJS.ProcessEnv;
const children: ChildProcess[] = [];

beforeAll(async () => {
  server = await e2eServer();
  // A team of its own: the feed and the webhooks below show every event of the key's team.
  env = { PUBSET_URL: server.url, PUBSET_CONFIG: join(dir, "no-config.json"), PUBSET_KEY_ID: server.soloKey.key_id, PUBSET_SECRET: server.soloKey.secret };
});
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function pubset(args: string[]): Promise<CliRun> {
  return runInProcess(args, env);
}

async function json<T>(args: string[]): Promise<T> {
  const run = await pubset([...args, "--json"]);
  expect(run.code, run.stderr + run.stdout).toBe(0);
  return JSON.parse(run.stdout) as T;
}

function lines<T>(run: CliRun): T[] {
  expect(run.code, run.stderr).toBe(0);
  return run.stdout.trim() === "" ? [] : run.stdout.trim().split("\n").map((line) => JSON.parse(line) as T);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached in ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

interface Event {
  cursor: string;
  type: string;
  id: string;
  version: string | null;
}

describe("pubset changes", () => {
  it("prints the events after a cursor, one JSON line each, and follows new ones with --follow", async () => {
    const [start] = lines<Event>(await pubset(["changes", "--since", "now", "--json"]));
    expect(start).toBeUndefined();
    const csv = join(dir, "a.csv");
    writeFileSync(csv, "a,b\n1,2\n");
    const created = await json<{ id: string; version: string }>(["create", csv, "--name", "CLI changes"]);
    const all = lines<Event>(await pubset(["changes", "--json"]));
    const mine = all.filter((e) => e.id === created.id);
    expect(mine.map((e) => [e.type, e.version])).toEqual([["dataset.created", created.version]]);

    const following = pubset(["changes", "--since", mine[0]!.cursor, "--follow", "--limit", "1", "--json"]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    writeFileSync(join(dir, "more.csv"), "3,4\n");
    const appended = await json<{ version: string }>(["append", created.id, join(dir, "more.csv")]);
    expect(lines<Event>(await following).map((e) => [e.type, e.version])).toEqual([["dataset.appended", appended.version]]);

    const human = await pubset(["changes", "--since", mine[0]!.cursor]);
    expect(human.stdout).toContain(`dataset.appended  ${created.id}  ${appended.version}`);
  });
});

describe("pubset webhooks and the README's receiver", () => {
  it("add, ls, deliveries, rotate, rm; deliveries reach the receiver as printed in the README", async () => {
    const receiver = await startWebhookReceiver();
    const added = await json<{ id: string; secret: string; url: string }>(["webhooks", "add", `${receiver.origin}/ok/cli`, "--events", "dataset.created,dataset.appended"]);
    expect(added.secret).toMatch(/^whsec_/);
    const listed = await json<{ results: Array<{ id: string; enabled: boolean }> }>(["webhooks", "ls"]);
    expect(listed.results.find((w) => w.id === added.id)).toMatchObject({ enabled: true });
    const table = await pubset(["webhooks", "ls"]);
    expect(table.stdout.split("\n")[0]).toMatch(/^ID +URL +ENABLED +EVENTS +DATASETS +CREATED$/);
    // No dataset named: the team's own only, shown as "-" rather than an empty column.
    expect(table.stdout).toMatch(new RegExp(`^${added.id} +${receiver.origin}/ok/cli +true +dataset\\.created,dataset\\.appended +- +\\d{4}-`, "m"));
    const bad = await pubset(["webhooks", "add", "http://10.0.0.1/x", "--json"]);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toMatchObject({ code: "invalid_request" });

    // The README's receiver, as printed.
    const code = /```js\n([\s\S]*?)```/.exec(section(readDoc("README.md"), "Following changes"))![1]!;
    writeFileSync(join(dir, "receiver.mjs"), code);
    const port = await freePort();
    const readme = await json<{ id: string; secret: string }>(["webhooks", "add", `http://127.0.0.1:${port}/`]);
    const child = spawn(process.execPath, [join(dir, "receiver.mjs")], { env: { ...process.env, WEBHOOK_SECRET: readme.secret, PORT: String(port) }, stdio: ["ignore", "pipe", "inherit"] });
    children.push(child);
    let printed = "";
    child.stdout!.on("data", (chunk: Buffer) => (printed += chunk.toString("utf8")));
    await until(async () => fetch(`http://127.0.0.1:${port}/`, { method: "POST" }).then((r) => r.status).catch(() => 0), (status) => status === 400);

    const csv = join(dir, "hooked.csv");
    writeFileSync(csv, "a\n1\n");
    const created = await json<{ id: string; version: string }>(["create", csv, "--name", "CLI hooked"]);
    await until(async () => printed, (text) => text.includes(created.id));
    expect(printed).toContain(`dataset.created ${created.id} ${created.version}`);

    const received = await until(
      async () => (await (await fetch(`${receiver.origin}/received/cli`)).json()) as Array<{ headers: Record<string, string>; body: string }>,
      (list) => list.length >= 1,
    );
    expect(new Webhook(added.secret).verify(received[0]!.body, received[0]!.headers)).toMatchObject({ type: "dataset.created" });
    expect(await verifyWebhook(added.secret, received[0]!.headers, received[0]!.body)).toMatchObject({ data: { id: created.id } });
    const deliveries = await until(
      () => json<{ results: Array<{ status: string; response_code: number | null }> }>(["webhooks", "deliveries", added.id]),
      (page) => page.results.some((d) => d.status === "delivered"),
    );
    expect(deliveries.results[0]).toMatchObject({ status: "delivered", response_code: 204 });

    const rotated = await json<{ secret: string }>(["webhooks", "rotate", added.id]);
    expect(rotated.secret).not.toBe(added.secret);
    expect((await pubset(["webhooks", "rm", added.id])).code).toBe(0);
    expect((await pubset(["webhooks", "rm", readme.id])).code).toBe(0);
    expect((await pubset(["webhooks", "deliveries", added.id, "--json"])).code).toBe(2);
    receiver.server.close();
  });
});
