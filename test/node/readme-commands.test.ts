// Every command of the README's quick start and CLI sections, and of the shell blocks in docs/
// not marked illustrative, run as printed against `npm start`: the blocks are read from the
// files, the port, each `<id>` (the dataset the commands before printed) and each `<upload>` (the
// upload resource) put in, and each line run by `sh` in a scratch directory that sees the
// checkout's package.json, scripts and examples. A command that fails fails the test.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAllBytes } from "../../src/client/byte-streams.ts";
import { PubsetClient } from "../../src/client/index.ts";
import { documentationFiles, readDoc, runnableCommands, section } from "./helpers/markdown.ts";
import { PROJECT_ROOT } from "./helpers/run-script.ts";
import { startServer, type RunningServer } from "./helpers/server.ts";

const README = readDoc("README.md");
const PRINTED_ORIGIN = "http://127.0.0.1:8787";
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

interface Ran {
  command: string;
  code: number;
  stdout: string;
  stderr: string;
}

function sh(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve) => {
    execFile("sh", ["-c", `set -e; ${command}`], { cwd, env, maxBuffer: 16 * 1024 * 1024, timeout: 90_000 }, (error, stdout, stderr) =>
      resolve({ command, code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }),
    );
  });
}

/** A dataset id a create printed: the JSON of `npm run sign`, or the `id` line of `pubset create`. */
function createdId(command: string, stdout: string): string | null {
  const isCreate = /\/v1\/dataset\s/.test(`${command} `) && command.includes("POST") ? true : /pubset create /.test(command);
  if (!isCreate) return null;
  return new RegExp(`"id":"(${UUID})"`).exec(stdout)?.[1] ?? new RegExp(`^id\\s+(${UUID})$`, "m").exec(stdout)?.[1] ?? null;
}

/** A failure the shell does not see: `curl -s` exits 0 on a problem document too. */
function answeredProblem(stdout: string): boolean {
  try {
    const parsed = JSON.parse(stdout) as { type?: unknown };
    return typeof parsed.type === "string" && parsed.type.startsWith("/problems/");
  } catch {
    return false;
  }
}

let server: RunningServer;
let work: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startServer();
  // The commands write files (`-o cities.csv`); a scratch directory keeps them out of the checkout.
  work = mkdtempSync(join(tmpdir(), "pubset-readme-"));
  for (const entry of ["package.json", "node_modules", "src", "scripts", "examples"]) symlinkSync(join(PROJECT_ROOT, entry), join(work, entry));
  env = {
    ...process.env,
    // The server's own state (its demo key, its D1 for `keys`), a config file of the test's own.
    PUBSET_STATE_DIR: server.stateDir,
    PUBSET_CONFIG: join(work, "pubset-config.json"),
    PUBSET_URL: "",
    PUBSET_KEY_ID: "",
    PUBSET_SECRET: "",
  };
});

afterAll(async () => {
  await server?.stop();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

/** Runs commands in order, putting in the port and the `<id>` and `<upload>` printed before. */
async function runAll(commands: string[], lineEnvFor: (command: string) => NodeJS.ProcessEnv = envFor): Promise<Ran[]> {
  const ran: Ran[] = [];
  let id: string | null = null;
  let upload: string | null = null;
  for (const printed of commands) {
    if (printed.includes("<id>") && id === null) throw new Error(`no dataset id printed before: ${printed}`);
    if (printed.includes("<upload>") && upload === null) throw new Error(`no upload location printed before: ${printed}`);
    const command: string = printed.replaceAll(PRINTED_ORIGIN, server.url).replaceAll("<id>", id ?? "").replaceAll("<upload>", upload ?? "");
    const result = await sh(command, work, lineEnvFor(command));
    ran.push(result);
    if (result.code !== 0 || answeredProblem(result.stdout)) {
      throw new Error(`printed command failed (exit ${result.code}): ${printed}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
    }
    id = createdId(command, result.stdout) ?? id;
    upload = new RegExp(`location: (/v1/uploads/${UUID})`).exec(result.stderr)?.[1] ?? upload;
  }
  return ran;
}

/** `pubset login` on a terminal asks; here (no terminal) it takes the demo key from the environment. */
function envFor(command: string): NodeJS.ProcessEnv {
  return /pubset login\b/.test(command) ? loggedIn() : env;
}

/** The environment of a reader who ran `pubset login` with the demo key. */
function loggedIn(): NodeJS.ProcessEnv {
  return { ...env, PUBSET_URL: server.url, PUBSET_KEY_ID: server.demoKey.key_id, PUBSET_SECRET: server.demoKey.secret };
}

/** What the harness stands for: the server is started by the test, and `npm test` is the suite. */
const HARNESS = /^npm (ci|start|test)\b/;

describe("README commands, run as printed", () => {
  it("the quick start: npm run sign, curl, then the CLI after `pubset login`", async () => {
    const commands = runnableCommands(section(README, "Quick start")).filter((c) => !HARNESS.test(c));
    expect(commands.some((c) => c.startsWith("npm run sign -- POST"))).toBe(true);
    expect(commands.some((c) => c.startsWith("npx pubset create"))).toBe(true);
    // The prose before the CLI block: `npx pubset login` with the demo key.
    const cliAt = commands.findIndex((c) => c.startsWith("npx pubset"));
    const ran = await runAll([...commands.slice(0, cliAt), "npx pubset login", ...commands.slice(cliAt)]);
    const content = ran.find((r) => r.command.includes("| gunzip"));
    expect(content?.stdout).toContain("Lagos,Nigeria,15388000");
  });

  it("the CLI section", async () => {
    const commands = runnableCommands(section(README, "CLI"));
    expect(commands[0]).toMatch(/^npx pubset login\b/);
    expect(commands.length).toBeGreaterThanOrEqual(10);
    const ran = await runAll(commands);
    expect(ran.find((r) => r.command.includes(" rm "))?.stdout).toContain("deleted");
    expect(readFileSync(join(work, "cities.csv"), "utf8")).toContain("city,country,population");
    // A hang guard, not a speed check: eighteen CLI starts take about a minute on a quiet 2-core
    // machine and went past 120 s with other work beside the suite.
  }, 300_000);
});

/** What a docs page's commands must have shown, beyond each one succeeding. */
const DOCS_CHECKS: Record<string, (ran: Ran[]) => Promise<void> | void> = {
  "docs/resumable-uploads.md": async (ran) => {
    expect(ran.filter((r) => r.command.includes("PATCH"))).toHaveLength(2);
    // The first chunk is min-append-size (64 KiB), cut inside a record.
    expect(ran.find((r) => r.command.includes(" HEAD "))?.stderr).toContain("upload-offset: 65536");
    const printedJson = ran.at(-1)!.stdout.split("\n").find((line) => line.startsWith("{")) ?? "";
    const created = JSON.parse(printedJson) as { id: string; name: string; source: string };
    expect(created.name).toBe("Nordic cities");
    const client = new PubsetClient({ url: server.url, key: { keyId: server.demoKey.key_id, secret: server.demoKey.secret } });
    const csv = new TextDecoder().decode(await readAllBytes((await client.download({ source: created.source }, { format: "csv" })).stream));
    expect(csv).toBe(readFileSync("/tmp/nordic.csv", "utf8"));
    expect(csv.split("\n")).toHaveLength(4002);
  },
  "docs/column-types.md": (ran) => {
    const rows = JSON.parse(ran.at(-1)!.stdout) as { rows: unknown[][] };
    expect(rows.rows).toEqual([
      ["007", 1234.5, true],
      ["012", null, false],
    ]);
  },
  "docs/cli.md": (ran) => {
    expect(ran[0]?.stdout).toContain("download");
  },
  "docs/deploy.md": (ran) => {
    expect(ran.at(-1)?.stdout).toContain("pk_");
  },
};

/** docs/ pages with shell blocks not marked illustrative. */
const RUNNABLE_DOCS = documentationFiles().filter((file) => file.startsWith("docs/") && runnableCommands(readDoc(file)).length > 0);

describe("docs/ commands, run as printed", () => {
  it("every page whose commands run has its own checks", () => {
    expect(RUNNABLE_DOCS).toEqual(Object.keys(DOCS_CHECKS).sort());
  });

  // A reader of docs/ has run the quick start, `pubset login` included.
  it.each(RUNNABLE_DOCS)("%s", async (file) => {
    const ran = await runAll(runnableCommands(readDoc(file)), () => loggedIn());
    await DOCS_CHECKS[file]?.(ran);
  });
});
