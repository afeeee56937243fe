// Lets a Node script import the worker's .wasm files as wrangler does: the default export is
// the compiled WebAssembly.Module (src/csv/record-kernel.d.wasm.ts). Node's own .wasm imports
// give an instance's exports instead. Register before the importing modules load, so import
// them dynamically after this module: `await import("../src/columnar/parquet/index.ts")`.
import { registerHooks } from "node:module";

registerHooks({
  load(url, context, nextLoad) {
    if (!url.endsWith(".wasm")) return nextLoad(url, context);
    const source = `import { readFileSync } from "node:fs";\nexport default new WebAssembly.Module(readFileSync(new URL(${JSON.stringify(url)})));\n`;
    return { format: "module", source, shortCircuit: true };
  },
});
