// `npm run build:kernel`: compiles the AssemblyScript kernels (src/csv/record-kernel.as.ts,
// src/csv/cell-kernel.as.ts, src/columnar/parquet/snappy-kernel.as.ts,
// src/columnar/parquet/typed-kernel.as.ts) into the committed .wasm beside each, which the
// worker imports as modules. `--check` (run by `npm test`) builds them in memory and fails when a
// committed binary is not its source's build, so a binary can never drift from its source.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import asc from "assemblyscript/asc";

const KERNELS = ["../src/csv/record-kernel", "../src/csv/cell-kernel", "../src/columnar/parquet/snappy-kernel", "../src/columnar/parquet/typed-kernel"];
// `stub`: the kernel allocates nothing; no assertions: it reads only bytes it was given; SIMD
// (fixed-width, in every V8 that workerd ships) for the 16-bytes-at-a-time scans.
const OPTIONS = ["--optimizeLevel", "3", "--shrinkLevel", "0", "--runtime", "stub", "--noAssert", "--enable", "simd"];

let stale = false;
for (const kernel of KERNELS) {
  const source = fileURLToPath(new URL(`${kernel}.as.ts`, import.meta.url));
  const binary = fileURLToPath(new URL(`${kernel}.wasm`, import.meta.url));
  const wasm = await build(source);
  const name = kernel.slice(3) + ".wasm";
  if (process.argv.includes("--check")) {
    if (!readFileSync(binary).equals(wasm)) {
      process.stderr.write(`${name} is not the build of its .as.ts: run \`npm run build:kernel\` and commit it\n`);
      stale = true;
    }
  } else {
    writeFileSync(binary, wasm);
    process.stdout.write(`${name}: ${wasm.length} bytes\n`);
  }
}
if (stale) process.exit(1);

async function build(source: string): Promise<Uint8Array> {
  const built = new Map<string, Uint8Array>();
  const { error } = await asc.main([source, "--outFile", "kernel.wasm", ...OPTIONS], {
    stderr: process.stderr,
    writeFile: (name: string, contents: Uint8Array | string) => {
      built.set(name, typeof contents === "string" ? new TextEncoder().encode(contents) : contents);
    },
  });
  if (error) process.exit(1);
  const wasm = built.get("kernel.wasm");
  if (!wasm) throw new Error(`asc wrote no kernel.wasm for ${source}`);
  return wasm;
}
