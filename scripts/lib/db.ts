// The query helper the key commands use. Local commands must work on a fresh clone, yet
// applying migrations costs a wrangler start, so each local batch also reads which migrations
// are applied. A batch that fails is rolled back (D1 runs it as one transaction),
// so on failure we apply the migrations and retry it once.
import { d1Execute, type D1Target, type Row } from "./d1.ts";
import { applyLocalMigrations, pendingMigrations } from "./local-migrations.ts";

const APPLIED_MIGRATIONS = "SELECT name FROM d1_migrations";

/** Runs `;`-separated statements (built with `sql`) as one batch; returns each one's rows. */
export async function queryDb(target: D1Target, statements: string): Promise<Row[][]> {
  if (target.kind === "remote") return d1Execute(target, statements);
  let results: Row[][];
  try {
    results = await d1Execute(target, `${APPLIED_MIGRATIONS};\n${statements}`);
  } catch {
    await applyLocalMigrations(target.persistTo);
    return d1Execute(target, statements);
  }
  const [applied = [], ...rest] = results;
  // The batch ran on the older schema, like any row the worker wrote before the migration.
  if (pendingMigrations(applied.map((row) => row["name"])).length > 0) await applyLocalMigrations(target.persistTo);
  return rest;
}
