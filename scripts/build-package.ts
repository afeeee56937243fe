// `npm run build` (also `prepack`, `prepare` and `npm test`): compiles the client and the CLI
// into dist/, the only folder the npm package ships (package.json "files"). dist/client.js is
// one self-contained ES module (fflate's browser build bundled in, no Node built-ins), so the
// same file loads in Node, browsers, Deno and Bun; dist/cli.js imports it and runs on Node ≥ 20.
// dist/types/ holds the .d.ts files tsc emits for the client's public surface.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
import ts from "typescript";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const DIST = `${ROOT}dist`;
const CLIENT_ENTRY = `${ROOT}src/client/index.ts`;
const { version } = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")) as { version: string };

/** The CLI's imports of the client become imports of dist/client.js, so the package holds one
 * copy of the client and a reader's `pubset/client` is the code the CLI runs. */
const clientAsSibling: Plugin = {
  name: "client-as-sibling",
  setup(b) {
    b.onResolve({ filter: /\/client\/index\.ts$/ }, () => ({ path: "./client.js", external: true }));
  },
};

await build({
  entryPoints: { client: CLIENT_ENTRY },
  outdir: DIST,
  bundle: true,
  format: "esm",
  // "neutral" with the import condition picks fflate's browser build, which has no worker_threads.
  platform: "neutral",
  conditions: ["import"],
  mainFields: ["module", "main"],
  target: "es2022",
  logLevel: "warning",
});

await build({
  entryPoints: { cli: `${ROOT}src/cli/main.ts` },
  outdir: DIST,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  plugins: [clientAsSibling],
  define: { PUBSET_VERSION: JSON.stringify(version) },
  logLevel: "warning",
});

const program = ts.createProgram([CLIENT_ENTRY], {
  declaration: true,
  emitDeclarationOnly: true,
  allowImportingTsExtensions: true,
  outDir: `${DIST}/types`,
  rootDir: `${ROOT}src`,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ES2022,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
  types: [],
  strict: true,
  skipLibCheck: true,
  verbatimModuleSyntax: true,
});
// The sources import each other as "./x.ts"; the .d.ts files must name the .js beside them.
const written = new Set<string>();
const emitted = program.emit(undefined, (file, text) => {
  written.add(file);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text.replace(/(from\s+"\.{1,2}\/[^"]*)\.ts"/g, '$1.js"'));
});
const problems = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
if (problems.length > 0) {
  process.stderr.write(ts.formatDiagnostics(problems, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => "\n" }));
  process.exit(1);
}
// dist/ is overwritten in place, never emptied first, so a test reading it meanwhile sees whole
// files; only declarations of modules that no longer exist are removed.
for (const entry of readdirSync(`${DIST}/types`, { recursive: true, withFileTypes: true })) {
  const path = join(entry.parentPath, entry.name);
  if (entry.isFile() && !written.has(path)) rmSync(path);
}
writeFileSync(`${DIST}/client.d.ts`, `export * from "./types/client/index.js";\n`);
process.stdout.write(`dist/: client.js, cli.js and the client's .d.ts for pubset ${version}\n`);
