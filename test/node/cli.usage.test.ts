// `pubset` without a server: help, usage errors (exit 1), configuration precedence, `login`
// writing its file 0600, how failures map to exit codes, and `npx pubset` resolving the bin.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { reportFailure, UsageError } from "../../src/cli/cli-error.ts";
import { COMMANDS } from "../../src/cli/run.ts";
import { licenseOption } from "../../src/cli/collection-options.ts";
import { resolveConfig } from "../../src/cli/config.ts";
import { CommandContext } from "../../src/cli/context.ts";
import { PubsetError, PubsetNetworkError } from "../../src/client/index.ts";
import { runInProcess } from "./cli.helpers.ts";
import { PROJECT_ROOT } from "./helpers/run-script.ts";
import { freePort } from "./helpers/server.ts";

const dir = mkdtempSync(join(tmpdir(), "pubset-cli-usage-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { PUBSET_CONFIG: join(dir, "absent.json") };

describe("help and usage errors", () => {
  it("documents commands and exit codes in --help", async () => {
    const help = await runInProcess(["--help"], env);
    expect(help.code).toBe(0);
    for (const word of ["ls", "create", "append", "update", "get", "versions", "rows", "download", "rm", "keys", "login", "exit codes:", "PUBSET_URL"]) {
      expect(help.stdout).toContain(word);
    }
    const command = await runInProcess(["rows", "--help"], env);
    expect(command).toMatchObject({ code: 0 });
    expect(command.stdout).toContain("usage: pubset rows ID [VERSION] [--where EXPR] [--columns A,B] [--order C,-D] [--offset N] [--limit N]");
  });

  it.each([
    [[], "usage: pubset"],
    [["frobnicate"], 'unknown command "frobnicate"'],
    [["donwload", "x"], 'unknown command "donwload" (did you mean download?)'],
    [["get"], "missing ID"],
    [["get", "a", "b", "c"], 'unexpected argument "c"'],
    [["create", "x.csv", "--name", "X"], "no such file: x.csv"],
    [["ls", "--colour"], "unknown option --colour"],
    [["ls", "--lmit", "3"], "unknown option --lmit (did you mean --limit?)"],
    [["create", "x.csv", "--name"], "--name needs a value"],
    [["create", "x.csv", "--name", "--public"], "--name needs a value, not the option --public"],
    [["ls", "--json=yes"], "--json takes no value"],
    [["rows", "id", "--limit", "0"], "--limit must be a whole number ≥ 1"],
    [["update", "id", "--public", "--private"], "exclude each other"],
    [["update", "id"], "update needs at least one"],
    [["download", "/v1/dataset/x/latest/a.csv.gz", "v1"], "either a source path or ID [VERSION]"],
    [["login"], "login needs --key-id and --secret"],
  ])("pubset %j exits 1", async (args, message) => {
    const run = await runInProcess(args, env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toMatch(/positional argument|ERR_PARSE_ARGS/);
    expect(run.stdout).toBe("");
    // With --json the same failure is one JSON document on stdout.
    const json = await runInProcess([...args, "--json"], env);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ code: "usage_error", exit_code: 1 });
    expect(String((JSON.parse(json.stdout) as { detail: string }).detail)).toContain(message.replace(/^usage: pubset$/, "no command given"));
  });

  it("every command's help shows an example that starts with its name", async () => {
    for (const command of COMMANDS) {
      const help = await runInProcess([command.name, "--help"], env);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`\nexample:\n  pubset ${command.name} `));
    }
    expect((await runInProcess(["--help"], env)).stdout).toContain("examples:\n  pubset login");
  });

  it("checks create's --name before touching the network", async () => {
    writeFileSync(join(dir, "a.csv"), "a\n1\n");
    const run = await runInProcess(["create", join(dir, "a.csv")], { ...env, PUBSET_URL: "http://127.0.0.1:9" });
    expect(run).toMatchObject({ code: 1 });
    expect(run.stderr).toContain("create needs --name");
  });

  it("runs as `npx pubset` from the package bin, and its advice says `npx pubset`", async () => {
    const run = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile("npx", ["--no-install", "pubset", "--help"], { cwd: PROJECT_ROOT }, (error, stdout) => resolve({ code: error ? 1 : 0, stdout })),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("usage: npx pubset <command>");
    expect(run.stdout).toContain("  npx pubset login\n");
    const wrong = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile("npx", ["--no-install", "pubset", "bogus"], { cwd: PROJECT_ROOT }, (error, _stdout, stderr) => resolve({ code: error ? 1 : 0, stderr })),
    );
    expect(wrong.stderr).toContain("Run `npx pubset --help` for usage.");
  });

  it("--license takes a listed SPDX id (any case) or a URL, and says what it expected otherwise", async () => {
    expect(licenseOption("cc-by-4.0")).toBe("CC-BY-4.0");
    expect(licenseOption("https://example.org/terms")).toBe("https://example.org/terms");
    const typo = await runInProcess(["create", "absent.csv", "--name", "N", "--license", "CC-BY-4"], env);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain("--license CC-BY-4: not an SPDX licence id pubset knows (did you mean CC-BY-4.0?)");
    const unknown = await runInProcess(["update", "some-id", "--license", "Beerware-Forever"], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("give its URL instead");
  });

  it("names itself as run: `pubset` installed, `npm run cli --` as the npm script", async () => {
    const installed = await runInProcess(["bogus"], env);
    expect(installed.stderr).toContain("Run `pubset --help` for usage.");
    const script = await runInProcess(["get", "--help"], { ...env, npm_command: "run-script", npm_lifecycle_event: "cli" });
    expect(script.stdout).toContain("usage: npm run cli -- get");
    // Another tool that npx started runs pubset: npm's variables name that tool, not pubset.
    const nested = await runInProcess(["bogus"], { ...env, npm_command: "exec", npm_lifecycle_event: "npx", npm_lifecycle_script: "'vitest'" });
    expect(nested.stderr).toContain("Run `pubset --help` for usage.");
  });

  it("the `finish:` line after Ctrl-C is this command line again, under the name it ran as", () => {
    const io = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough() };
    const argv = ["append", "some-id", "my file.csv", "--idempotency-key", "old"];
    const npx = new CommandContext({ ...io, env: { npm_command: "exec", npm_lifecycle_script: "pubset" } }, {}, argv);
    expect(npx.rerunWith("--idempotency-key", "k1")).toBe("npx pubset append some-id 'my file.csv' --idempotency-key k1");
    const installed = new CommandContext({ ...io, env: {} }, {}, argv);
    expect(installed.rerunWith("--idempotency-key", "k1")).toBe("pubset append some-id 'my file.csv' --idempotency-key k1");
  });
});

describe("configuration", () => {
  it("takes env over the config file, field by field, and defaults the URL", () => {
    const file = join(dir, "config.json");
    writeFileSync(file, JSON.stringify({ url: "http://file.test", key_id: "pk_file", secret: "file-secret" }), { mode: 0o600 });
    const warnings: string[] = [];
    const warn = (m: string) => warnings.push(m);
    expect(resolveConfig({ PUBSET_CONFIG: file }, undefined, warn)).toMatchObject({ url: "http://file.test", key: { keyId: "pk_file", secret: "file-secret" } });
    expect(resolveConfig({ PUBSET_CONFIG: file, PUBSET_URL: "http://env.test", PUBSET_SECRET: "env-secret" }, undefined, warn)).toMatchObject({
      url: "http://env.test",
      key: { keyId: "pk_file", secret: "env-secret" },
    });
    expect(resolveConfig({ PUBSET_CONFIG: file, PUBSET_URL: "http://env.test" }, "http://flag.test", warn).url).toBe("http://flag.test");
    expect(resolveConfig({ PUBSET_CONFIG: join(dir, "none.json") }, undefined, warn)).toMatchObject({ url: "http://127.0.0.1:8787", key: undefined });
    expect(warnings).toEqual([]);
  });

  it("warns when the config file is readable by others", () => {
    const file = join(dir, "open.json");
    writeFileSync(file, "{}", { mode: 0o644 });
    const warnings: string[] = [];
    resolveConfig({ PUBSET_CONFIG: file }, undefined, (m) => warnings.push(m));
    expect(warnings[0]).toContain("chmod 600");
  });

  it("login with no server answering saves nothing, and names the URL it tried and --url", async () => {
    const file = join(dir, "nested", "config.json");
    const url = `http://127.0.0.1:${await freePort()}`;
    const run = await runInProcess(["login", "--url", url, "--key-id", "pk_a", "--secret", "s-a", "--json"], { PUBSET_CONFIG: file });
    expect(run.code).toBe(3);
    expect(existsSync(file)).toBe(false);
    expect(run.stderr).toContain(`pubset: nothing saved: no server answered at ${url}`);
    expect(run.stderr).toContain("--url");
    expect(JSON.parse(run.stdout)).toMatchObject({ code: "network_error" });
  });

  it("any command that gets no answer names the server it tried and how to choose another", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const run = await runInProcess(["ls"], { ...env, PUBSET_URL: url });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`no server answered at ${url}`);
    expect(run.stderr).toContain("--url URL, PUBSET_URL or `pubset login`");
  });
});

describe("failures", () => {
  function report(error: unknown, json: boolean) {
    const out = new PassThrough();
    const err = new PassThrough();
    const code = reportFailure(error, json, out, err);
    return { code, stdout: String(out.read() ?? ""), stderr: String(err.read() ?? "") };
  }

  it("exit 2 for API problems, with code, detail and members; --json also prints the problem", () => {
    const problem = { type: "/problems/invalid_csv", title: "Invalid CSV", status: 422, detail: "Row 3 is short.", code: "invalid_csv", row: 3 };
    const result = report(new PubsetError(problem), true);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("pubset: invalid_csv (HTTP 422): Row 3 is short. (row=3)\n");
    expect(JSON.parse(result.stdout)).toEqual(problem);
  });

  it("exit 3 for network and other errors", () => {
    expect(report(new PubsetNetworkError("GET x: fetch failed", 5, null), false)).toMatchObject({ code: 3, stdout: "" });
    expect(report(new Error("EACCES"), false).code).toBe(3);
  });

  it("--json: every failure is one JSON document with a code", () => {
    expect(JSON.parse(report(new PubsetNetworkError("GET x: fetch failed", 5, null), true).stdout)).toMatchObject({ code: "network_error", attempts: 5, exit_code: 3 });
    expect(JSON.parse(report(new Error("EACCES"), true).stdout)).toMatchObject({ code: "error", detail: "EACCES", exit_code: 3 });
    expect(JSON.parse(report(new UsageError("missing ID"), true).stdout)).toMatchObject({ code: "usage_error", detail: "missing ID", exit_code: 1 });
  });
});
