// Applies the pending D1 migrations to a local database in one `wrangler d1 execute`.
// `wrangler d1 migrations apply --local` starts a miniflare per migration: 19 migrations took
// 27 s of a fresh `npm start` (docs/performance.md "Test suite"). Here the pending ones run as
// one batch, which D1 runs as one transaction, so a migration that fails leaves none applied.
// The bookkeeping is wrangler's own: its `d1_migrations` table and the same row per migration,
// so `wrangler d1 migrations list|apply` afterwards agree with what was done here.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { d1Execute, type D1Target } from "./d1.ts";
import { PROJECT_ROOT } from "./paths.ts";
import { runWrangler } from "./wrangler.ts";

// wrangler.toml: migrations_dir = "migrations", the default migrations table.
const MIGRATIONS_DIR = join(PROJECT_ROOT, "migrations");
const MIGRATIONS_TABLE = "d1_migrations";
/** The table as wrangler creates it, to the byte, so either may create it first. */
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "${MIGRATIONS_TABLE}"(
\t\tid         INTEGER PRIMARY KEY AUTOINCREMENT,
\t\tname       TEXT UNIQUE,
\t\tapplied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
)`;

export interface MigrationsApplied {
  /** The migrations this call applied, in order; empty when the database was up to date. */
  applied: string[];
  /** What wrangler printed, for a log. */
  output: string;
}

/** The project's migration files, in the order wrangler applies them. */
export function migrationNames(): string[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((name) => name.endsWith(".sql"))
    .sort();
}

/** The migrations not yet recorded in `applied` (names from the migrations table). */
export function pendingMigrations(applied: Iterable<unknown>): string[] {
  const done = new Set(applied);
  return migrationNames().filter((name) => !done.has(name));
}

/** Each migration's statements followed by its row in the migrations table, as wrangler applies one. */
function migrationBatch(names: string[]): string {
  return names
    .map((name) => `${readFileSync(join(MIGRATIONS_DIR, name), "utf8")}\nINSERT INTO ${MIGRATIONS_TABLE} (name) VALUES ('${name.replace(/'/g, "''")}');\n`)
    .join("");
}

/** Applies what is pending to the local database under `persistTo` (default .wrangler/state). */
export async function applyLocalMigrations(persistTo?: string): Promise<MigrationsApplied> {
  const target: D1Target = persistTo === undefined ? { kind: "local" } : { kind: "local", persistTo };
  const [, applied = []] = await d1Execute(target, `${CREATE_MIGRATIONS_TABLE};\nSELECT name FROM ${MIGRATIONS_TABLE} ORDER BY id`);
  const pending = pendingMigrations(applied.map((row) => row["name"]));
  if (pending.length === 0) return { applied: [], output: "" };
  const dir = mkdtempSync(join(tmpdir(), "pubset-migrations-"));
  try {
    const file = join(dir, "pending.sql");
    writeFileSync(file, migrationBatch(pending));
    const location = persistTo === undefined ? ["--local"] : ["--local", "--persist-to", persistTo];
    const result = await runWrangler(["d1", "execute", "DB", ...location, "--file", file]);
    const output = result.stdout + result.stderr;
    if (result.code !== 0) throw new Error(`applying ${pending.length} D1 migration(s) failed, none applied:\n${output.trim().split("\n").slice(-20).join("\n")}`);
    return { applied: pending, output };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
