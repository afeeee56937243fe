// `npm start` and `npm run keys` apply the local migrations in one batch (scripts/lib/local-migrations.ts)
// instead of `wrangler d1 migrations apply`. The oracle is wrangler's own command: the same
// schema, the same bookkeeping, and wrangler finds nothing left to apply.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { d1Execute, type Row } from "../../scripts/lib/d1.ts";
import { applyLocalMigrations, migrationNames, type MigrationsApplied } from "../../scripts/lib/local-migrations.ts";
import { runWrangler } from "../../scripts/lib/wrangler.ts";

const SCHEMA = "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE '_cf_%' AND name <> 'sqlite_sequence' ORDER BY type, name";
const BOOKKEEPING = "SELECT id, name FROM d1_migrations ORDER BY id";

let ours: string;
let wranglers: string;
let first: MigrationsApplied;

/** The schema and the migrations table, in one wrangler run. */
function read(persistTo: string): Promise<Row[][]> {
  return d1Execute({ kind: "local", persistTo }, `${SCHEMA};\n${BOOKKEEPING}`);
}

beforeAll(async () => {
  ours = mkdtempSync(join(tmpdir(), "pubset-migrations-ours-"));
  wranglers = mkdtempSync(join(tmpdir(), "pubset-migrations-wrangler-"));
  const [applied, reference] = await Promise.all([
    applyLocalMigrations(ours),
    runWrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", wranglers]),
  ]);
  expect(reference.code, reference.stderr).toBe(0);
  first = applied;
}, 180_000);

afterAll(() => {
  for (const dir of [ours, wranglers]) rmSync(dir, { recursive: true, force: true });
});

describe("the local migrations in one batch", () => {
  it("applies every migration on a fresh database, in wrangler's order", () => {
    expect(first.applied).toEqual(migrationNames());
    expect(first.applied.length).toBeGreaterThan(10);
  });

  it("makes the schema wrangler's own command makes, and the same migrations table", async () => {
    const [[schema = [], books = []], [referenceSchema, referenceBooks]] = await Promise.all([read(ours), read(wranglers)]);
    expect(schema.length).toBeGreaterThan(20);
    expect(schema).toEqual(referenceSchema);
    expect(books).toHaveLength(migrationNames().length);
    expect(books).toEqual(referenceBooks);
  });

  it("leaves nothing for wrangler to apply, and applies nothing the second time", async () => {
    const [list, again] = await Promise.all([runWrangler(["d1", "migrations", "list", "DB", "--local", "--persist-to", ours]), applyLocalMigrations(ours)]);
    expect(list.stdout + list.stderr).toContain("No migrations to apply");
    expect(again.applied).toEqual([]);
  });
});
