// dist/client.js — the file `pubset/client` resolves to in the package (`npm test` builds it
// first) — run by Bun and by Deno, the two server-side runtimes besides Node that the README
// names, against `npm start`: a signed create, an append, a question, a CSV download, the change
// feed, and a webhook delivery verified with a signature made by the `standardwebhooks` package.
// Both runtimes come from npm (devDependencies `bun` and `deno`), so this runs offline.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "./helpers/run-script.ts";
import { e2eServer, type E2eServer } from "./helpers/shared-server.ts";

const CLIENT = join(PROJECT_ROOT, "dist/client.js");
const dir = mkdtempSync(join(tmpdir(), "pubset-runtimes-"));
let server: E2eServer & { stop(): Promise<void> };

/** What every runtime runs: plain JavaScript with nothing but the client and web APIs. */
const SCRIPT = `
const [clientUrl, url, keyId, secret, tag, delivery] = JSON.parse(atob(globalThis.PUBSET_ARGS));
const { Client, PubsetError, verifyWebhook, WebhookVerificationError } = await import(clientUrl);
const client = new Client({ url, key: { keyId, secret } });
const created = await client.create(
  { name: "Runtime " + tag, visibility: "public", properties: { key_words: [tag] } },
  new File(["city,population\\nOslo,709037\\nBergen,291940\\n"], "cities.csv", { type: "text/csv" }),
);
const appended = await client.append(created.id, "Trondheim,212660\\n", { ifMatch: created.version });
const question = await client.rows(created.id, { where: "population > 250000", order: "-population" });
const download = await client.download({ id: created.id }, { format: "csv" });
const csv = await new Response(download.stream).text();
let missing;
try {
  await client.get("00000000-0000-4000-8000-000000000000");
} catch (error) {
  missing = error instanceof PubsetError ? error.code : String(error);
}
const events = [];
for await (const event of client.changes()) if (event.id === created.id) events.push(event.type);
const verified = await verifyWebhook(delivery.secret, delivery.headers, delivery.body);
let tampered;
try {
  await verifyWebhook(delivery.secret, delivery.headers, delivery.body.replace("created", "deleted"));
} catch (error) {
  tampered = error instanceof WebhookVerificationError ? error.reason : String(error);
}
await client.delete(created.id);
console.log(JSON.stringify({
  rows: question.rows,
  matched: question.matched,
  csv,
  fileName: download.fileName,
  appended: appended.version !== created.version,
  missing,
  events,
  verified: verified.type,
  tampered,
}));
`;

interface Runtime {
  name: string;
  command: string;
  args: (script: string) => string[];
}

const RUNTIMES: Runtime[] = [
  { name: "Bun", command: join(PROJECT_ROOT, "node_modules/.bin/bun"), args: (script) => ["run", script] },
  {
    name: "Deno",
    command: join(PROJECT_ROOT, "node_modules/.bin/deno"),
    // No config or package.json lookup, nothing fetched: the client is one self-contained file.
    args: (script) => ["run", "--no-config", "--no-npm", "--no-remote", "--allow-net=127.0.0.1", `--allow-read=${dir},${CLIENT}`, script],
  },
];

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: dir, env: { PATH: process.env.PATH, HOME: dir, DENO_DIR: join(dir, "deno"), NO_COLOR: "1", ...env }, maxBuffer: 8 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 128, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  if (!existsSync(CLIENT) || statSync(CLIENT).mtimeMs < statSync(join(PROJECT_ROOT, "src/client/client.ts")).mtimeMs) {
    throw new Error("dist/client.js is missing or older than src/client: run `npm run build`");
  }
  server = await e2eServer();
}, 300_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(RUNTIMES)("the packaged client under $name", (runtime) => {
  it("creates, appends, asks, downloads, follows the feed and verifies a webhook", async () => {
    const version = await run(runtime.command, ["--version"], {});
    expect(version.code, version.stderr).toBe(0);

    // A delivery signed by the independent library, as a receiver would get it.
    const id = `msg_${runtime.name}`;
    const timestamp = new Date();
    const secret = `whsec_${Buffer.from("a runtime test secret, 32 bytes!").toString("base64")}`;
    const body = JSON.stringify({ type: "dataset.created", timestamp: timestamp.toISOString(), data: { cursor: "c1", type: "dataset.created", id: "x", version: "v", team: "t", occurred: timestamp.toISOString() } });
    const signature = new Webhook(secret).sign(id, timestamp, body);
    const headers = { "webhook-id": id, "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)), "webhook-signature": signature };

    const tag = `runtime${runtime.name.toLowerCase()}${Date.now()}`;
    const args = [pathToFileURL(CLIENT).href, server.url, server.demoKey.key_id, server.demoKey.secret, tag, { secret, headers, body }];
    const script = join(dir, `check-${runtime.name}.mjs`);
    writeFileSync(script, `globalThis.PUBSET_ARGS = ${JSON.stringify(Buffer.from(JSON.stringify(args)).toString("base64"))};\n${SCRIPT}`);

    const result = await run(runtime.command, runtime.args(script), {});
    expect(result.code, result.stderr).toBe(0);
    const answer = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "");
    expect(answer).toEqual({
      rows: [
        ["Oslo", 709037],
        ["Bergen", 291940],
      ],
      matched: 2,
      csv: "city,population\nOslo,709037\nBergen,291940\nTrondheim,212660\n",
      fileName: "cities.csv",
      appended: true,
      missing: "not_found",
      events: ["dataset.created", "dataset.appended"],
      verified: "dataset.created",
      tampered: "no_matching_signature",
    });
  });
});
