// `pubset` against a real `npm start` over HTTP: create → append → download → rows → private →
// delete, the config file `login` writes, and exit codes. Most steps call the CLI in-process
// (runCli, same code as the binary, no 0.5 s Node start each); exit codes use real processes.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PassThrough, Readable } from "node:stream";
import { runCli } from "../../src/cli/run.ts";
import { runInProcess, type CliRun as Run } from "./cli.helpers.ts";
import { e2eServer, type E2eServer } from "./helpers/shared-server.ts";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "pubset-cli-e2e-"));
let server: E2eServer & { stop(): Promise<void> };
let signedEnv: NodeJS.ProcessEnv;
let anonymousEnv: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await e2eServer();
  anonymousEnv = { PUBSET_URL: server.url, PUBSET_CONFIG: join(dir, "no-config.json") };
  signedEnv = { ...anonymousEnv, PUBSET_KEY_ID: server.demoKey.key_id, PUBSET_SECRET: server.demoKey.secret };
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const NO_ENV_CONFIG = { PUBSET_URL: "", PUBSET_KEY_ID: "", PUBSET_SECRET: "" };

/** A real `node src/cli/main.ts` process. */
function pubsetProcess(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args], { cwd: dir, env: { ...process.env, ...NO_ENV_CONFIG, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 128, stdout, stderr });
    });
  });
}

/** The CLI in this process, with its own streams and environment. */
function pubset(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return runInProcess(args, { ...NO_ENV_CONFIG, ...env });
}

async function ok(args: string[], env: NodeJS.ProcessEnv = signedEnv): Promise<Run> {
  const run = await pubset(args, env);
  if (run.code !== 0) throw new Error(`pubset ${args.join(" ")} exited ${run.code}\n${run.stderr}`);
  return run;
}

const json = <T>(run: Run) => JSON.parse(run.stdout) as T;

describe("pubset against a running server", () => {
  it("create → append → download → rows → versions → private → delete", async () => {
    const lines = ["city,country,population", "Tokyo,Japan,37400068", "Delhi,India,28514000", '"Shanghai, Pudong",China,25582000'];
    writeFileSync(join(dir, "cities.csv"), lines.join("\n") + "\n");
    writeFileSync(join(dir, "more.csv"), "Lagos,Nigeria,15388000\n");
    const expected = [...lines, "Lagos,Nigeria,15388000"].join("\n") + "\n";

    const created = json<{ id: string; version: string; source: string; visibility: string }>(
      await ok(["create", join(dir, "cities.csv"), "--name", "CLI cities", "--public", "--description", "From the CLI", "--key-words", "geo, cli", "--json"]),
    );
    expect(created.source).toBe(`/v1/dataset/${created.id}/${created.version}/cities.csv.gz`);
    expect(created.visibility).toBe("public");
    const id = created.id;

    const appended = json<{ version: string }>(await ok(["append", id, join(dir, "more.csv"), "--json"]));
    expect(appended.version).not.toBe(created.version);

    const saved = json<{ file: string; bytes: number }>(await ok(["download", id, "-o", join(dir, "out.csv.gz"), "--json"]));
    const gz = readFileSync(join(dir, "out.csv.gz"));
    expect(saved).toMatchObject({ file: join(dir, "out.csv.gz"), bytes: gz.length });
    const served = Buffer.from(await (await fetch(`${server.url}/v1/dataset/${id}/latest/cities.csv.gz`)).arrayBuffer());
    expect(Buffer.compare(gz, served)).toBe(0);
    expect(gunzipSync(gz).toString("utf8")).toBe(expected);
    await ok(["download", `/v1/dataset/${id}/${appended.version}/cities.csv.gz`, "-o", join(dir, "out.csv")]);
    expect(readFileSync(join(dir, "out.csv"), "utf8")).toBe(expected);
    expect((await ok(["download", id, "latest", "-o", "-"])).stdout).toBe(expected);
    expect((await ok(["download", id, created.version, "-o", "-"])).stdout).toBe(lines.join("\n") + "\n");
    expect((await ok(["download", id, "latest", "--file", "cities.csv", "-o", "-"])).stdout).toBe(expected);
    const noSuchVersion = await pubset(["download", id, crypto.randomUUID(), "-o", "-"], signedEnv);
    expect(noSuchVersion.code).toBe(2);
    expect(noSuchVersion.stderr).toContain("not_found");

    const rows = json<{ rows: string[][]; total: number }>(await ok(["rows", id, "--offset", "2", "--limit", "2", "--json"]));
    expect(rows).toMatchObject({ rows: [["Shanghai, Pudong", "China", 25582000], ["Lagos", "Nigeria", 15388000]], total: 4 });
    const table = await ok(["rows", id, "--limit", "1"]);
    expect(table.stdout).toMatch(/^city\s+country\s+population\nTokyo\s+Japan\s+37400068\n$/);
    expect(table.stderr).toContain("rows 1-1 of 4");

    const versions = json<{ results: Array<{ version: string }> }>(await ok(["versions", id, "--json"]));
    expect(versions.results.map((v) => v.version)).toEqual([appended.version, created.version]);
    expect((await ok(["ls", "--q", "CLI cities"], anonymousEnv)).stdout).toContain(id);

    await ok(["update", id, "--private", "--description", "Now private"]);
    const record = json<{ visibility: string; properties: Record<string, unknown> }>(await ok(["get", id, "--json"]));
    expect(record).toMatchObject({ visibility: "private", properties: { description: "Now private", key_words: ["geo", "cli"] } });
    const hidden = await pubset(["get", id], anonymousEnv);
    expect(hidden.code).toBe(2);
    expect(hidden.stderr).toContain("not_found");
    const hiddenJson = await pubset(["get", id, "--json"], anonymousEnv);
    expect(json<{ status: number; code: string }>(hiddenJson)).toMatchObject({ status: 404, code: "not_found" });

    expect(json(await ok(["rm", id, "--json"]))).toEqual({ id, deleted: true });
    expect((await pubset(["get", id], signedEnv)).code).toBe(2);
  });

  it("update --public names the drafts that stay private; --with-history publishes them (docs/api.md#who-sees-what)", async () => {
    writeFileSync(join(dir, "draft.csv"), "word\nEARLYSECRETROW\n");
    writeFileSync(join(dir, "draft-rows.csv"), "DRAFTAPPENDROW\n");
    const created = json<{ id: string; version: string }>(await ok(["create", join(dir, "draft.csv"), "--name", "CLI draft", "--json"]));
    const id = created.id;
    const draftAppend = json<{ version: string }>(await ok(["append", id, join(dir, "draft-rows.csv"), "--json"]));

    const published = await ok(["update", id, "--public", "--name", "CLI published"]);
    expect(published.stderr).toContain("2 earlier versions written while private stay readable by your team only");
    expect(published.stderr).toContain(created.version);
    expect(published.stderr).toContain(draftAppend.version);
    expect(published.stderr).toContain(`pubset update ${id} --public --with-history`);
    const hidden = await pubset(["rows", id, created.version], anonymousEnv);
    expect(hidden.code).toBe(2);
    expect(hidden.stderr).toContain("not_found");

    const withHistory = await ok(["update", id, "--public", "--with-history", "--json"]);
    expect(withHistory.stderr).toBe("");
    expect((await ok(["rows", id, created.version, "--json"], anonymousEnv)).stdout).toContain("EARLYSECRETROW");
    const anonymousVersions = json<{ results: Array<{ version: string }> }>(await ok(["versions", id, "--json"], anonymousEnv));
    expect(anonymousVersions.results).toHaveLength(4);

    const misuse = await pubset(["update", id, "--with-history"], signedEnv);
    expect(misuse.code).not.toBe(0);
    expect(misuse.stderr).toContain("--with-history goes with --public");
  });

  it("--schema FILE declares column types on create and update; a broken declaration exits 2 with the row", async () => {
    const examples = fileURLToPath(new URL("../../examples/", import.meta.url));
    const created = json<{ id: string }>(
      await ok(["create", join(examples, "readings.csv"), "--name", "Readings", "--schema", join(examples, "readings.schema.json"), "--json"]),
    );
    const page = json<{ schema: { fields: { name: string; type: string }[] }; rows: unknown[][] }>(await ok(["rows", created.id, "--json"]));
    expect(page.schema.fields.map((f) => f.type)).toEqual(["string", "number", "boolean"]);
    expect(page.rows).toEqual([["007", 1234.5, true], ["012", null, false]]);
    expect(json(await ok(["schema", created.id, "--json"]))).toEqual(page.schema);
    const table = (await ok(["schema", created.id])).stdout;
    expect(table).toMatch(/^reading\s+number\s+decimalChar ",", groupChar "\."$/m);
    expect(table).toMatch(/^ok\s+boolean\s+true yes, false no$/m);
    writeFileSync(join(dir, "station-date.json"), JSON.stringify({ fields: [{ name: "station", type: "date" }] }));
    const refused = await pubset(["update", created.id, "--schema", join(dir, "station-date.json"), "--json"], signedEnv);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout)).toMatchObject({ code: "schema_mismatch", row: 2, column: "station", value: "007", expected: "date" });
    const missing = await pubset(["update", created.id, "--schema", join(dir, "no-such.json"), "--json"], signedEnv);
    expect(missing.code).toBe(1);
  });

  it("signs with the key `pubset login` saved (mode 0600) when env has none", async () => {
    const config = join(dir, "login", "config.json");
    const env = { PUBSET_CONFIG: config };
    await ok(["login", "--url", server.url, "--key-id", server.demoKey.key_id, "--secret", server.demoKey.secret], env);
    expect(statSync(config).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(config, "utf8"))).toEqual({ url: server.url, key_id: server.demoKey.key_id, secret: server.demoKey.secret });
    writeFileSync(join(dir, "private.csv"), "a,b\n1,2\n");
    const created = json<{ id: string }>(await ok(["create", join(dir, "private.csv"), "--name", "Private via login", "--json"], env));
    const listed = json<{ results: Array<{ id: string; visibility: string }> }>(await ok(["ls", "--json"], env));
    expect(listed.results).toContainEqual(expect.objectContaining({ id: created.id, visibility: "private" }));
  });

  it("login checks the key with one signed request: a wrong secret or an unknown key saves nothing and says which", async () => {
    const config = join(dir, "login-checked", "config.json");
    const env = { PUBSET_CONFIG: config };
    const wrongSecret = await pubset(["login", "--url", server.url, "--key-id", server.demoKey.key_id, "--secret", "sk_not-the-secret"], env);
    expect(wrongSecret.code).toBe(2);
    expect(wrongSecret.stderr).toContain(`pubset: nothing saved: that secret is not the one for key ${server.demoKey.key_id}`);
    const unknownKey = await pubset(["login", "--url", server.url, "--key-id", "pk_nobody", "--secret", server.demoKey.secret, "--json"], env);
    expect(unknownKey.code).toBe(2);
    expect(unknownKey.stderr).toContain(`does not know key id pk_nobody`);
    expect(JSON.parse(unknownKey.stdout)).toMatchObject({ code: "unknown_key" });
    expect(() => statSync(config)).toThrow();
    // Without flags, without a terminal: the environment's key, checked, then saved.
    const fromEnv = await pubset(["login", "--json"], { ...env, PUBSET_URL: server.url, PUBSET_KEY_ID: server.demoKey.key_id, PUBSET_SECRET: server.demoKey.secret });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(JSON.parse(fromEnv.stdout)).toEqual({ file: config, url: server.url, key_id: server.demoKey.key_id });
    expect(JSON.parse(readFileSync(config, "utf8"))).toEqual({ url: server.url, key_id: server.demoKey.key_id, secret: server.demoKey.secret });
  });

  it("--license on create and update: an SPDX id in SPDX's spelling or a URL, and `get` shows it", async () => {
    writeFileSync(join(dir, "licensed.csv"), "a,b\n1,2\n");
    const created = json<{ id: string }>(await ok(["create", join(dir, "licensed.csv"), "--name", "Licensed", "--license", "cc-by-4.0", "--json"]));
    const shown = await ok(["get", created.id]);
    expect(shown.stdout).toMatch(/^license\s+CC-BY-4\.0 {2}https:\/\/spdx\.org\/licenses\/CC-BY-4\.0\.html$/m);
    await ok(["update", created.id, "--license", "https://example.org/terms"]);
    const record = json<{ properties: { license: string } }>(await ok(["get", created.id, "--json"]));
    expect(record.properties.license).toBe("https://example.org/terms");
    expect((await ok(["get", created.id])).stdout).toMatch(/^license\s+https:\/\/example\.org\/terms$/m);
  });

  it("rows of a 24-column file: the terminal gets what fits and the names of the rest; --columns, --csv and --json", async () => {
    const header = Array.from({ length: 24 }, (_, i) => `measure_${i + 1}`);
    const lines = [header.join(","), ...Array.from({ length: 3 }, (_, r) => header.map((_, i) => `${r * 100 + i}.5`).join(","))];
    writeFileSync(join(dir, "wide.csv"), lines.join("\n") + "\n");
    const { id } = json<{ id: string }>(await ok(["create", join(dir, "wide.csv"), "--name", "Wide", "--json"]));
    const terminal = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
    const errors = new PassThrough();
    const chunks: Buffer[] = [];
    const errorChunks: Buffer[] = [];
    terminal.on("data", (chunk: Buffer) => chunks.push(chunk));
    errors.on("data", (chunk: Buffer) => errorChunks.push(chunk));
    const code = await runCli(["rows", id], { stdout: terminal, stderr: errors, stdin: Readable.from([]), env: { ...NO_ENV_CONFIG, ...signedEnv } });
    expect(code).toBe(0);
    const table = Buffer.concat(chunks).toString("utf8").trimEnd().split("\n");
    expect(table).toHaveLength(4);
    for (const line of table) expect(line.length).toBeLessThanOrEqual(80);
    const shownCount = table[0]!.split(/\s+/).length;
    expect(Buffer.concat(errorChunks).toString("utf8")).toContain(`${24 - shownCount} more columns not shown: ${header.slice(shownCount).join(", ")}`);
    const csv = await ok(["rows", id, "--csv"]);
    expect(csv.stdout.split("\r\n")[0]).toBe(header.join(","));
    const chosen = json<{ columns: string[]; rows: unknown[][] }>(await ok(["rows", id, "--columns", "measure_24,2", "--json"]));
    expect(chosen.columns).toEqual(["measure_24", "measure_2"]);
    expect(chosen.rows[0]).toEqual([23.5, 1.5]);
    const all = json<{ columns: string[] }>(await ok(["rows", id, "--json"]));
    expect(all.columns).toEqual(header);
  });

  it("a 401 for an unknown key or a wrong secret suggests `pubset login`", async () => {
    const wrong = await pubset(["ls"], { ...anonymousEnv, PUBSET_KEY_ID: server.demoKey.key_id, PUBSET_SECRET: "sk_wrong" });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("signature_invalid (HTTP 401)");
    expect(wrong.stderr).toContain("run `pubset login`");
    const unknown = await pubset(["ls"], { ...anonymousEnv, PUBSET_KEY_ID: "pk_nobody", PUBSET_SECRET: "sk_wrong" });
    expect(unknown.stderr).toContain("unknown_key (HTTP 401)");
    expect(unknown.stderr).toContain("run `pubset login`");
  });

  it("exits 2 with the problem code on API errors, 3 on I/O errors (real processes)", async () => {
    writeFileSync(join(dir, "ragged.csv"), "a,b\n1\n");
    const [ragged, unsigned, missing] = await Promise.all([
      pubsetProcess(["create", "ragged.csv", "--name", "Ragged"], signedEnv),
      pubsetProcess(["create", "ragged.csv", "--name", "Ragged"], anonymousEnv),
      pubsetProcess(["download", `/v1/dataset/${crypto.randomUUID()}/latest/x.csv.gz`, "-o", join(dir, "missing-dir", "x.gz")], signedEnv),
    ]);
    expect(ragged.code).toBe(2);
    expect(ragged.stderr).toMatch(/invalid_csv \(HTTP 422\).*row=2/);
    expect(unsigned.code).toBe(2);
    expect(unsigned.stderr).toContain("signature_required");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("not_found");
    writeFileSync(join(dir, "ok.csv"), "a,b\n1,2\n");
    const created = json<{ id: string }>(await ok(["create", join(dir, "ok.csv"), "--name", "For an I/O error", "--json"]));
    const ioError = await pubsetProcess(["download", created.id, "-o", join(dir, "missing-dir", "x.gz")], signedEnv);
    expect(ioError.code).toBe(3);
    expect(ioError.stderr).toContain("ENOENT");
  });
});
