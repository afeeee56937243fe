// The storage figures, measured against a running worker: one-row appends to the
// large dataset with their R2 bytes (every object in the local bucket's blob store, compactions
// included), the segments per version after them, the D1 bytes each version row takes, and
// one-row append latency on the small and the large dataset, taken in turns.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { appendRows, download, type Client, type Created } from "./api.ts";
import { csvRows } from "./csv-gen.ts";

export interface StorageFigures {
  appends: number;
  appendedBytes: number;
  r2BytesWritten: number;
  segmentsAfter: number;
  maxSegmentsSeen: number;
  versionRowBytes: { narrow: number; wide: number; wideColumns: number };
  latency: { small: number[]; large: number[] };
  downloadChecked: boolean;
}

/** Bytes of every file under `dir` (the local R2 bucket keeps one blob file per object part). */
export function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? treeBytes(path) : statSync(path).size;
  }
  return total;
}

export function findDir(root: string, name: string): string {
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const path = join(root, entry.name);
    if (entry.name === name) return path;
    try {
      return findDir(path, name);
    } catch {
      // not below this one
    }
  }
  throw new Error(`no ${name} directory under ${root}`);
}

function d1File(stateDir: string): string {
  const dir = findDir(stateDir, "miniflare-D1DatabaseObject");
  const file = readdirSync(dir).find((name) => name.endsWith(".sqlite") && name !== "metadata.sqlite");
  if (!file) throw new Error(`no D1 database under ${dir}`);
  return join(dir, file);
}

function query<T>(stateDir: string, sql: string, ...params: Array<string | number>): T[] {
  const db = new DatabaseSync(d1File(stateDir), { readOnly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

function segmentsOf(stateDir: string, datasetId: string): number {
  const [row] = query<{ n: number }>(
    stateDir,
    "SELECT COUNT(*) AS n FROM version_segments WHERE version_id = (SELECT latest_version FROM datasets WHERE id = ?)",
    datasetId,
  );
  return row?.n ?? 0;
}

/**
 * The bytes a version row and its segment list take in D1 (text lengths, 8 per number). The
 * header and properties it names are stored once per distinct value, not per version.
 */
function versionRowBytes(stateDir: string, versionId: string): number {
  const [row] = query<{ bytes: number }>(
    stateDir,
    `SELECT (SELECT SUM(length(CAST(value AS BLOB))) FROM json_each(json_array(v.id, v.dataset_id, v.parent_id, v.created, v.name,
              v.visibility, v.properties_id, v.file_name, v.header_id, v.eol))) + 5 * 8
          + (SELECT COALESCE(SUM(length(segment_key) + 2 * 8), 0) FROM version_segments WHERE version_id = v.id) AS bytes
     FROM versions v WHERE v.id = ?`,
    versionId,
  );
  return row?.bytes ?? 0;
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? 0;
export const p50 = (values: number[]) => percentile(values, 50);
export const p95 = (values: number[]) => percentile(values, 95);

export async function measureStorage(
  client: Client,
  stateDir: string,
  large: { created: Created; csvPath: string },
  small: Created,
  wide: Created,
  appends: number,
): Promise<StorageFigures> {
  // Miniflare keeps each R2 object's bytes as a file under v3/r2/<bucket>/blobs.
  const blobs = join(findDir(stateDir, "r2"), "pubset-content", "blobs");
  const before = treeBytes(blobs);
  const hash = createHash("sha256").update(readFileSync(large.csvPath));
  let appendedBytes = 0;
  let maxSegmentsSeen = 0;
  const latency = { small: [] as number[], large: [] as number[] };
  let lastVersion = large.created.version;
  for (let i = 0; i < appends; i++) {
    const row = csvRows(50_000 + i, 20_000_000 + i, 1);
    const { version, seconds } = await appendRows(client, large.created.id, row);
    lastVersion = version;
    hash.update(row);
    appendedBytes += row.length;
    latency.large.push(seconds);
    if (i % 5 === 0) latency.small.push((await appendRows(client, small.id, csvRows(70_000 + i, 30_000_000 + i, 1))).seconds);
    if (i % 50 === 0) maxSegmentsSeen = Math.max(maxSegmentsSeen, segmentsOf(stateDir, large.created.id));
    if ((i + 1) % 100 === 0) process.stderr.write(`bench: ${i + 1}/${appends} one-row appends\n`);
  }
  // Let the last compaction (after the last response) finish before reading what was written.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const r2BytesWritten = treeBytes(blobs) - before;
  const segmentsAfter = segmentsOf(stateDir, large.created.id);
  maxSegmentsSeen = Math.max(maxSegmentsSeen, segmentsAfter);
  const expected = hash.digest("hex");
  const fileName = large.created.source.split("/").pop() ?? "";
  const downloaded = await download(client, `/v1/dataset/${large.created.id}/${lastVersion}/${fileName}`, 0, true);
  const wideVersion = query<{ latest_version: string }>(stateDir, "SELECT latest_version FROM datasets WHERE id = ?", wide.id)[0]?.latest_version ?? "";
  const wideColumns = JSON.parse(query<{ columns: string }>(stateDir, "SELECT columns FROM version_records WHERE id = ?", wideVersion)[0]?.columns ?? "[]") as unknown[];
  return {
    appends,
    appendedBytes,
    r2BytesWritten,
    segmentsAfter,
    maxSegmentsSeen,
    versionRowBytes: { narrow: versionRowBytes(stateDir, lastVersion), wide: versionRowBytes(stateDir, wideVersion), wideColumns: wideColumns.length },
    latency,
    downloadChecked: downloaded.sha256 === expected,
  };
}

export interface ConcurrencyFigures {
  writers: number;
  appendsEach: number;
  acknowledged: number;
  refused: Record<string, number>;
  latency: number[];
  wallSeconds: number;
  linearChain: boolean;
}

/** `writers` clients appending `appendsEach` one-row appends each to one dataset, all at once. */
export async function measureConcurrency(client: Client, stateDir: string, created: Created, writers: number, appendsEach: number): Promise<ConcurrencyFigures> {
  const latency: number[] = [];
  const refused: Record<string, number> = {};
  let acknowledged = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let n = 0; n < appendsEach; n++) {
        const t0 = performance.now();
        try {
          await appendRows(client, created.id, csvRows(90_000 + w * appendsEach + n, 40_000_000 + w * appendsEach + n, 1));
          acknowledged++;
          latency.push((performance.now() - t0) / 1000);
        } catch (error: unknown) {
          const status = /HTTP (\d{3})/.exec(String(error))?.[1] ?? "error";
          refused[status] = (refused[status] ?? 0) + 1;
        }
      }
    }),
  );
  const wallSeconds = (performance.now() - started) / 1000;
  const chain = query<{ seq: number; parent_ok: number }>(
    stateDir,
    `SELECT v.seq, (v.parent_id IS (SELECT p.id FROM versions p WHERE p.dataset_id = v.dataset_id AND p.seq = v.seq - 1)) AS parent_ok
     FROM versions v WHERE v.dataset_id = ? ORDER BY v.seq`,
    created.id,
  );
  const linearChain = chain.every((row, i) => row.seq === i + 1 && (i === 0 || row.parent_ok === 1));
  return { writers, appendsEach, acknowledged, refused, latency, wallSeconds, linearChain };
}
