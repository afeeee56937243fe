// The npm package as a user gets it: `npm pack` (which builds dist/ in prepack), installed
// globally into a temp prefix and run with the system's Node from a folder outside the checkout,
// against `npm start`; the client imported from the installed package, and its .d.ts checked by
// tsc in a scratch project that knows nothing of this checkout.
import { execFile, execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "./helpers/run-script.ts";
import { e2eServer, type E2eServer } from "./helpers/shared-server.ts";

const dir = mkdtempSync(join(tmpdir(), "pubset-package-"));
const prefix = join(dir, "prefix");
const outside = join(dir, "elsewhere");
const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as { version: string };
let tarball: string;
let server: E2eServer & { stop(): Promise<void> };

/** The first `node` on PATH that is not this project's own Node 24 (node_modules/.bin). */
function systemNode(): string {
  const found = execFileSync("sh", ["-c", "which -a node"], { encoding: "utf8" }).split("\n");
  const node = found.find((path) => path !== "" && !path.includes("node_modules"));
  if (node === undefined) throw new Error("no system node on PATH");
  return node;
}
const SYSTEM_NODE = systemNode();
const SYSTEM_BIN = SYSTEM_NODE.slice(0, SYSTEM_NODE.lastIndexOf("/"));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A command with only the install prefix and the system's Node on PATH, nothing of the checkout. */
function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const path = [join(prefix, "bin"), SYSTEM_BIN, "/usr/bin", "/bin"].join(":");
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env: { PATH: path, HOME: dir, ...env }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 128, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  mkdirSync(outside);
  const packed = await run("npm", ["pack", "--json", "--pack-destination", dir], PROJECT_ROOT, { PATH: process.env.PATH });
  expect(packed.code, packed.stderr).toBe(0);
  const [pack] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as Array<{ filename: string }>;
  tarball = join(dir, pack?.filename ?? "");
  const installed = await run("npm", ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", tarball], outside);
  expect(installed.code, installed.stderr).toBe(0);
  server = await e2eServer();
}, 300_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the npm package", () => {
  it("holds the build, the launcher and no server code, and depends on nothing", () => {
    const listing = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n");
    const files = listing.map((line) => line.replace(/^package\//, ""));
    expect(files.filter((file) => !file.startsWith("dist/")).sort()).toEqual(["README.md", "package.json", "src/cli/pubset.js"]);
    expect(files).toContain("dist/cli.js");
    expect(files).toContain("dist/client.js");
    expect(files).toContain("dist/client.d.ts");
    expect(files.some((file) => /wrangler|worker|migrations|\.ts$/.test(file) && !file.endsWith(".d.ts"))).toBe(false);
    const installed = JSON.parse(readFileSync(join(prefix, "lib/node_modules/pubset/package.json"), "utf8")) as Record<string, unknown>;
    expect(installed.dependencies).toBeUndefined();
    expect(readdirSync(join(prefix, "lib/node_modules/pubset"))).not.toContain("node_modules");
  });

  it("the client is one ES module with no Node built-in among its imports", () => {
    const client = readFileSync(join(prefix, "lib/node_modules/pubset/dist/client.js"), "utf8");
    expect(client).not.toMatch(/^\s*import\b/m);
    expect(client).not.toMatch(/\bfrom\s*["']node:/);
    expect(client).not.toMatch(/\brequire\(/);
  });

  it("`pubset --version` runs from a folder outside the checkout on the system's Node", async () => {
    const version = await run(SYSTEM_NODE, ["--version"], outside);
    expect(version.stdout).toMatch(/^v\d+\./);
    const result = await run("pubset", ["--version"], outside);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`pubset ${manifest.version}\n`);
  });

  it("`pubset create` from there makes a dataset on `npm start`", async () => {
    copyFileSync(join(PROJECT_ROOT, "examples/cities.csv"), join(outside, "cities.csv"));
    const env = { PUBSET_URL: server.url, PUBSET_KEY_ID: server.demoKey.key_id, PUBSET_SECRET: server.demoKey.secret };
    const created = await run("pubset", ["create", "cities.csv", "--name", "Installed", "--json"], outside, env);
    expect(created.code, created.stderr).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };
    const got = await run("pubset", ["get", id, "--json"], outside, env);
    expect(got.code, got.stderr).toBe(0);
    expect((JSON.parse(got.stdout) as { name: string }).name).toBe("Installed");
  });

  it("`import { Client } from \"pubset/client\"` works in Node and type-checks with tsc", async () => {
    const project = join(dir, "consumer");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    const installed = await run("npm", ["install", "--no-audit", "--no-fund", tarball], project);
    expect(installed.code, installed.stderr).toBe(0);
    const code = `import { Client, PubsetError } from "pubset/client";
const client = new Client({ url: process.argv[2] });
const page: string[] = [];
for await (const dataset of client.list()) page.push(dataset.id);
try {
  await client.get("00000000-0000-4000-8000-000000000000");
} catch (error) {
  if (error instanceof PubsetError) console.log(JSON.stringify({ listed: page.length >= 0, code: error.code }));
}
`;
    writeFileSync(join(project, "check.ts"), code);
    writeFileSync(join(project, "check.mjs"), code.replace("const page: string[]", "const page"));
    const ran = await run(SYSTEM_NODE, ["check.mjs", server.url], project);
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({ listed: true, code: "not_found" });
    // A browser-like project: DOM types, no @types/node (`process` is the one Node global check.ts uses).
    writeFileSync(join(project, "globals.d.ts"), "declare const process: { argv: string[] };\n");
    const compilerOptions = { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, lib: ["ES2022", "DOM", "DOM.Iterable"], types: [] };
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["check.ts", "globals.d.ts"] }));
    const tsc = await run(SYSTEM_NODE, [join(PROJECT_ROOT, "node_modules/typescript/bin/tsc"), "-p", project], project);
    expect(tsc.code, tsc.stdout + tsc.stderr).toBe(0);
    writeFileSync(join(project, "wrong.ts"), `import { Client } from "pubset/client";\nnew Client({ url: 42 });\n`);
    writeFileSync(join(project, "tsconfig.wrong.json"), JSON.stringify({ compilerOptions, files: ["wrong.ts"] }));
    const wrong = await run(SYSTEM_NODE, [join(PROJECT_ROOT, "node_modules/typescript/bin/tsc"), "-p", join(project, "tsconfig.wrong.json")], project);
    expect(wrong.stdout).toMatch(/wrong\.ts\(2,14\): error TS2322/);
  });
});
