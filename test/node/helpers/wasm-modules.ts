// The node test project imports the worker's .wasm files as wrangler does: the default export is
// the compiled WebAssembly.Module (src/csv/record-kernel.d.wasm.ts), so the Parquet encoder the
// DuckDB and hyparquet tests read is the one the worker runs, Snappy kernel included.
import type { Plugin } from "vitest/config";

export function wasmModules(): Plugin {
  return {
    name: "pubset-wasm-modules",
    enforce: "pre",
    load(id) {
      if (!id.endsWith(".wasm")) return null;
      return `import { readFileSync } from "node:fs";\nexport default new WebAssembly.Module(readFileSync(${JSON.stringify(id)}));\n`;
    },
  };
}
