// `npm run keys` against a throw-away local state directory: output contract, list/revoke,
// argument validation, and that secrets never reach the SQLite files in plaintext (docs/api.md#signing-requests).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runScript } from "./helpers/run-script.ts";

let stateDir: string;
const keys = (...args: string[]) => runScript("keys.ts", [...args, "--persist-to", stateDir]);

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

function parseLines(stdout: string): Record<string, unknown>[] {
  return stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
}

beforeAll(() => {
  stateDir = mkdtempSync(join(tmpdir(), "pubset-keys-"));
});

afterAll(() => {
  rmSync(stateDir, { recursive: true, force: true });
});

describe("keys create, list, revoke", () => {
  const created: { key_id: string; secret: string }[] = [];

  it("create prints exactly one JSON line with key_id, secret, team, user", async () => {
    const result = await keys("create", "--team", "acme", "--user", "ada");
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    expect(result.stdout.endsWith("\n")).toBe(true);
    expect(result.stdout.trimEnd().split("\n")).toHaveLength(1);
    const key = JSON.parse(result.stdout) as Record<string, string>;
    expect(Object.keys(key).sort()).toEqual(["key_id", "secret", "team", "user"]);
    expect(key).toMatchObject({ team: "acme", user: "ada" });
    expect(key.key_id).toMatch(/^pk_[A-Za-z0-9_-]+$/);
    expect(key.secret).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    created.push({ key_id: key.key_id!, secret: key.secret! });
  });

  it("a second create for the same team and user makes another key", async () => {
    const result = await keys("create", "--team", "acme", "--user", "ada");
    expect(result.code).toBe(0);
    const key = JSON.parse(result.stdout) as Record<string, string>;
    expect(key.key_id).not.toBe(created[0]?.key_id);
    created.push({ key_id: key.key_id!, secret: key.secret! });
  });

  it("list --json shows both keys, unrevoked", async () => {
    const result = await keys("list", "--json");
    expect(result.code).toBe(0);
    const rows = parseLines(result.stdout);
    expect(rows.map((r) => r.key_id).sort()).toEqual(created.map((k) => k.key_id).sort());
    for (const row of rows) {
      expect(row).toMatchObject({ team: "acme", user: "ada", revoked: null });
      expect(row.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(row).not.toHaveProperty("secret");
    }
  });

  it("revoke marks one key; list shows which", async () => {
    const [first, second] = created;
    const result = await keys("revoke", first!.key_id);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ key_id: first!.key_id, revoked: expect.stringMatching(/Z$/) });

    const table = await keys("list");
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^KEY_ID\s+TEAM\s+USER\s+CREATED\s+REVOKED$/);
    expect(lines.find((l) => l.startsWith(first!.key_id))).toMatch(/Z$/);
    expect(lines.find((l) => l.startsWith(second!.key_id))).toMatch(/\s-$/);
  });

  it("revoking a key that does not exist fails with exit 2", async () => {
    const result = await keys("revoke", "pk_doesnotexist");
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
  });

  it("stores no secret in plaintext in the local database files", () => {
    const files = filesUnder(stateDir);
    const contents = files.map((file) => readFileSync(file));
    // The key ids are stored in the clear, so finding them proves these are the right files.
    for (const { key_id, secret } of created) {
      expect(contents.some((bytes) => bytes.includes(key_id))).toBe(true);
      expect(contents.some((bytes) => bytes.includes(secret))).toBe(false);
    }
  });
});

describe.concurrent("keys usage errors", () => {
  const cases: [string, string[]][] = [
    ["no command", []],
    ["unknown command", ["frobnicate"]],
    ["unknown option", ["list", "--frob"]],
    ["missing --user", ["create", "--team", "acme"]],
    ["team with a space", ["create", "--team", "ac me", "--user", "ada"]],
    ["team too long", ["create", "--team", "a".repeat(65), "--user", "ada"]],
    ["user with a quote", ["create", "--team", "acme", "--user", "ada'; DROP TABLE api_keys; --"]],
    ["user with a slash", ["create", "--team", "acme", "--user", "a/b"]],
    ["empty team", ["create", "--team", "", "--user", "ada"]],
    ["revoke without id", ["revoke"]],
    ["revoke with a bad id", ["revoke", "pk_x' OR 1=1 --"]],
    ["--remote with --persist-to", ["list", "--remote"]],
  ];

  it.each(cases)("%s → exit 1, nothing on stdout", async (_name, args) => {
    const result = await keys(...args);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^error: /);
  });

  it("--remote create without PUBSET_KEY_ENCRYPTION_KEY → exit 1 naming the variable", async () => {
    const result = await runScript("keys.ts", ["create", "--team", "acme", "--user", "ada", "--remote"], {
      PUBSET_KEY_ENCRYPTION_KEY: "",
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("PUBSET_KEY_ENCRYPTION_KEY");
  });
});
