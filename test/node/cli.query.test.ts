// `pubset rows --where/--columns/--order` and `pubset export` against a real `npm start`, and
// the client's `rows` and `exportRows` they call (docs/queries.md): the answer matches what the
// question asks of the file, a bad expression says where it goes wrong, and an export is the
// whole answer as CSV, written to a file only once complete.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PubsetClient } from "../../src/client/index.ts";
import { runInProcess, type CliRun as Run } from "./cli.helpers.ts";
import { e2eServer, type E2eServer } from "./helpers/shared-server.ts";

const dir = mkdtempSync(join(tmpdir(), "pubset-cli-query-"));
let server: E2eServer & { stop(): Promise<void> };
let env: NodeJS.ProcessEnv;
let id: string;

const CITIES = [
  ["Tokyo", "Japan", "37400068"],
  ["Delhi", "India", "28514000"],
  ["Shanghai, Pudong", "China", "25582000"],
  ["Osaka", "Japan", "19281000"],
  ["Nagoya", "Japan", ""],
];

beforeAll(async () => {
  server = await e2eServer();
  env = { PUBSET_URL: server.url, PUBSET_CONFIG: join(dir, "no-config.json"), PUBSET_KEY_ID: server.demoKey.key_id, PUBSET_SECRET: server.demoKey.secret };
  const csv = ["city,country,population", ...CITIES.map((row) => row.map((cell) => (cell.includes(",") ? `"${cell}"` : cell)).join(","))].join("\n") + "\n";
  writeFileSync(join(dir, "cities.csv"), csv);
  const created = await runInProcess(["create", join(dir, "cities.csv"), "--name", "Query cities", "--json"], env);
  if (created.code !== 0) throw new Error(created.stderr);
  id = (JSON.parse(created.stdout) as { id: string }).id;
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function ok(args: string[]): Promise<Run> {
  const run = await runInProcess(args, env);
  if (run.code !== 0) throw new Error(`pubset ${args.join(" ")} exited ${run.code}\n${run.stderr}`);
  return run;
}

describe("questions from the command line", () => {
  it("pubset rows --where --columns --order answers the matching rows, sorted, in the chosen columns", async () => {
    const run = await ok(["rows", id, "--where", "country = 'Japan' AND population IS NOT NULL", "--columns", "population,city", "--order", "-population", "--json"]);
    const page = JSON.parse(run.stdout) as { columns: string[]; rows: unknown[][]; matched: number };
    expect(page.columns).toEqual(["population", "city"]);
    expect(page.rows).toEqual([
      [37400068, "Tokyo"],
      [19281000, "Osaka"],
    ]);
    expect(page.matched).toBe(2);
    const table = await ok(["rows", id, "--where", "country = 'Japan'"]);
    expect(table.stderr).toContain("rows 1-3 of 3 matching rows (of 5)");
  });

  it("a wrong expression exits non-zero and names the position and what was expected", async () => {
    const run = await runInProcess(["rows", id, "--where", "population >"], env);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("invalid_query");
    expect(run.stderr).toMatch(/at character 13/);
  });

  it("pubset export writes the whole answer as CSV, header first", async () => {
    const file = join(dir, "japan.csv");
    await ok(["export", id, "--where", "country = 'Japan'", "--order", "city", "-o", file]);
    expect(readFileSync(file, "utf8")).toBe("city,country,population\r\nNagoya,Japan,\r\nOsaka,Japan,19281000\r\nTokyo,Japan,37400068\r\n");
    expect(existsSync(`${file}.part`)).toBe(false);
    const stdout = await ok(["export", id, "--columns", "city", "--where", "city LIKE 'S%'"]);
    expect(stdout.stdout).toBe('city\r\n"Shanghai, Pudong"\r\n');
  });

  it("an export that fails leaves no file under the asked name", async () => {
    const file = join(dir, "never.csv");
    const run = await runInProcess(["export", id, "--where", "nope = 1", "-o", file], env);
    expect(run.code).not.toBe(0);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.part`)).toBe(false);
  });

  it("the client takes columns and order as lists, and exports a stream", async () => {
    const client = new PubsetClient({ url: server.url, key: { keyId: server.demoKey.key_id, secret: server.demoKey.secret } });
    const page = await client.rows(id, { columns: ["city"], order: ["-country", "city"], limit: 2 });
    expect(page.rows.map((row) => row[0])).toEqual(["Nagoya", "Osaka"]);
    const stream = await client.exportRows(id, { where: "population > 25000000", order: "population" });
    expect(await new Response(stream).text()).toBe('city,country,population\r\n"Shanghai, Pudong",China,25582000\r\nDelhi,India,28514000\r\nTokyo,Japan,37400068\r\n');
  });
});
