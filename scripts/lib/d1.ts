// The `DB` database through `wrangler d1 execute --json`: the local one under the state
// directory (works whether or not `wrangler dev` is running) or, with --remote, the deployed one.
import { runWrangler } from "./wrangler.ts";

export type D1Target = { kind: "local"; persistTo?: string } | { kind: "remote" };

export type Row = Record<string, unknown>;

const DATABASE = "DB";

function locationArgs(target: D1Target): string[] {
  if (target.kind === "remote") return ["--remote"];
  return target.persistTo === undefined ? ["--local"] : ["--local", "--persist-to", target.persistTo];
}

interface StatementResult {
  results?: Row[];
  success?: boolean;
}

function failure(what: string, result: { stdout: string; stderr: string }): Error {
  const detail = (result.stderr.trim() || result.stdout.trim()).split("\n").slice(-20).join("\n");
  return new Error(`${what} failed${detail ? `:\n${detail}` : ""}`);
}

/**
 * Runs `;`-separated statements as one batch (atomic in local mode: wrangler uses D1 batch)
 * and returns the rows of each statement. Build the text with `sql` from ./sql.ts.
 */
export async function d1Execute(target: D1Target, statements: string): Promise<Row[][]> {
  const result = await runWrangler(["d1", "execute", DATABASE, ...locationArgs(target), "--json", "--command", statements]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(result.stdout);
  } catch {
    throw failure("wrangler d1 execute", result);
  }
  if (!Array.isArray(parsed)) {
    const text = (parsed as { error?: { text?: unknown } } | null)?.error?.text;
    if (typeof text === "string") throw new Error(`wrangler d1 execute: ${text}`);
    throw failure("wrangler d1 execute", result);
  }
  if (result.code !== 0) throw failure("wrangler d1 execute", result);
  return (parsed as StatementResult[]).map((statement) => statement.results ?? []);
}
