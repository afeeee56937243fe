// What `wrangler deploy` would upload is built from src/index.ts alone: the bench-only
// /__bench/* routes live in the bench's own entry (src/bench-entry.ts) and are not in it.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runWrangler } from "../../scripts/lib/wrangler.ts";

const out = mkdtempSync(join(tmpdir(), "pubset-deploy-bundle-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

async function bundle(dir: string, entry: string[] = []): Promise<string> {
  const result = await runWrangler(["deploy", ...entry, "--dry-run", "--outdir", dir]);
  expect(result.code, result.stderr).toBe(0);
  const script = readdirSync(dir).find((name) => name.endsWith(".js"));
  if (script === undefined) throw new Error(`no bundle in ${dir}`);
  return readFileSync(join(dir, script), "utf8");
}

describe("the deployed bundle", () => {
  it("carries no bench route, while the bench entry's bundle does", async () => {
    const deployed = await bundle(join(out, "deployed"));
    expect(deployed).toContain("/v1/dataset");
    expect(deployed).not.toContain("/__bench");
    expect(deployed).not.toContain("BENCH_ENDPOINTS");
    const bench = await bundle(join(out, "bench"), ["src/bench-entry.ts"]);
    expect(bench).toContain("/__bench");
  });
});
