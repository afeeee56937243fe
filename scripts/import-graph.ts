// The source tree's import graph, for `npm run check:imports` and test/node/layout.test.ts: every
// relative import between files under src/ (type-only ones too: they tie rooms together as much),
// the circles in it, and the imports that cross from a room into one it must not reach.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { PROJECT_ROOT } from "./lib/paths.ts";

const SRC = join(PROJECT_ROOT, "src");
const SPECIFIER = /(?:\bfrom|\bimport|\bexport\s+\*\s+from|\bimport\()\s*["'](\.{1,2}\/[^"'?]+)/g;

/** Rooms whose code runs outside the server (client, CLI) or must stay pure: what each may import. */
export const ALLOWED: Record<string, readonly string[]> = {
  client: ["client", "wire", "model", "csv", "schema"],
  cli: ["cli", "client", "wire", "model", "csv", "schema"],
  wire: ["wire"],
  model: ["model", "schema", "wire"],
  csv: ["csv"],
  schema: ["schema", "csv", "model"],
  // Pure rooms inside a flow's folder: the Parquet encoding, the statistics summaries and the
  // query language run in the worker but touch no binding, so they can be read and tested alone.
  "columnar/parquet": ["columnar/parquet", "schema", "csv", "wire", "model"],
  "columnar/statistics": ["columnar/statistics", "schema", "csv", "model"],
  "query/language": ["query/language", "schema", "csv", "model"],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith(".d.ts") && !name.endsWith(".as.ts") ? [path] : [];
  });
}

/** File (relative to src/) → the files it imports (relative to src/). */
export function importGraph(src: string = SRC): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(src)) {
    const text = readFileSync(file, "utf8");
    const targets = [...text.matchAll(SPECIFIER)]
      .map((m) => normalize(join(dirname(file), m[1]!)))
      .filter((target) => /\.(ts|tsx)$/.test(target))
      .map((target) => relative(src, target));
    graph.set(relative(src, file), [...new Set(targets)]);
  }
  return graph;
}

export function roomOf(file: string): string {
  return file.includes("/") ? file.slice(0, file.indexOf("/")) : ".";
}

/** Every elementary circle found by a depth-first search, each once, as a list of files. */
export function importCircles(graph: Map<string, string[]>): string[][] {
  const circles = new Map<string, string[]>();
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") {
        const circle = stack.slice(stack.indexOf(next));
        const key = [...circle].sort().join(" ");
        if (!circles.has(key)) circles.set(key, circle);
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return [...circles.values()];
}

/**
 * The layers, lowest first (docs/layout.md): a file imports its own layer or a lower one, never a
 * higher one. Rooms are named by folder, top-level files by name; nested pure rooms count as 0.
 */
export const LAYERS: Record<string, number> = {
  model: 0, wire: 0, csv: 0, schema: 0,
  "config.ts": 1, "app-env.ts": 1,
  http: 2, storage: 2, edge: 2, auth: 2,
  write: 3, uploads: 3, read: 3, metadata: 3, catalog: 3, openapi: 3, maintenance: 3,
  columnar: 3, query: 3, changes: 3, client: 3,
  cli: 4, bench: 4, "app.ts": 4, "index.ts": 4, "dataset-routes.ts": 4, "bench-entry.ts": 5,
};

export function layerOf(file: string): number {
  const room = policedRoomOf(file);
  if (room in ALLOWED && room.includes("/")) return 0;
  const layer = LAYERS[room === "." ? file : room];
  if (layer === undefined) throw new Error(`${file}: its room has no layer in scripts/import-graph.ts LAYERS`);
  return layer;
}

/** Imports that run from a lower layer up to a higher one. */
export function upwardImports(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) for (const target of targets) if (layerOf(target) > layerOf(file)) found.push(`${file} → ${target}`);
  return found;
}

/** The room ALLOWED judges `file` by: the deepest folder listed there that holds it, else its top folder. */
export function policedRoomOf(file: string): string {
  const nested = Object.keys(ALLOWED)
    .filter((room) => file.startsWith(`${room}/`))
    .sort((a, b) => b.length - a.length)[0];
  return nested ?? roomOf(file);
}

/** Imports from a room listed in ALLOWED into a room it may not use. */
export function forbiddenImports(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    const allowed = ALLOWED[policedRoomOf(file)];
    if (!allowed) continue;
    for (const target of targets) if (!allowed.includes(policedRoomOf(target))) found.push(`${file} → ${target}`);
  }
  return found;
}

/**
 * What one request's entry file pulls in: every file it imports, directly or not, the rooms
 * they sit in, and the longest import chain from it (back edges of a circle are not followed).
 */
export function reachFrom(graph: Map<string, string[]>, entry: string): { files: string[]; rooms: string[]; chain: string[] } {
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    pending.push(...(graph.get(file) ?? []));
  }
  const longest = new Map<string, string[]>();
  const open = new Set<string>();
  const chainFrom = (file: string): string[] => {
    const known = longest.get(file);
    if (known) return known;
    open.add(file);
    let best: string[] = [];
    for (const next of graph.get(file) ?? []) {
      if (open.has(next)) continue;
      const chain = chainFrom(next);
      if (chain.length > best.length) best = chain;
    }
    open.delete(file);
    const chain = [file, ...best];
    longest.set(file, chain);
    return chain;
  };
  return { files: [...seen], rooms: [...new Set([...seen].map(roomOf))].sort(), chain: chainFrom(entry) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // `--src DIR` reads another checkout's src/ (to compare with an older commit); `--from FILE`
  // prints what that entry file pulls in.
  const option = (name: string) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const graph = importGraph(option("--src") ?? SRC);
  const entry = option("--from");
  if (entry !== undefined) {
    const { files, rooms, chain } = reachFrom(graph, entry);
    const roomChanges = chain.filter((file, i) => i > 0 && roomOf(file) !== roomOf(chain[i - 1]!)).length;
    console.log(`${entry} pulls in ${files.length} files in ${rooms.length} rooms (${rooms.join(", ")})`);
    console.log(`longest import chain: ${chain.length} files, ${roomChanges} room changes`);
    for (const file of chain) console.log(`  ${file}`);
    process.exit(0);
  }
  const circles = importCircles(graph);
  const forbidden = [...forbiddenImports(graph), ...upwardImports(graph)];
  const rooms = new Set([...graph.keys()].map(roomOf));
  console.log(`${graph.size} source files in ${rooms.size} rooms (${[...rooms].sort().join(", ")})`);
  console.log(`${circles.length} import circle(s)${circles.length ? ":" : ""}`);
  for (const circle of circles) console.log(`  ${[...circle, circle[0]].join(" → ")}`);
  console.log(`${forbidden.length} import(s) into a room the importer may not use, or up a layer${forbidden.length ? ":" : ""}`);
  for (const line of forbidden) console.log(`  ${line}`);
  process.exit(circles.length + forbidden.length > 0 ? 1 : 0);
}
