// `npm run build:kernel`: compiles src/csv/record-kernel.as.ts (AssemblyScript) into the
// committed src/csv/record-kernel.wasm, which the worker imports as a module. `--check` (run by
// `npm test`) builds it in memory and fails when the committed binary is not this build, so the
// binary can never drift from its source.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import asc from "assemblyscript/asc";

const SOURCE = fileURLToPath(new URL("../src/csv/record-kernel.as.ts", import.meta.url));
const BINARY = fileURLToPath(new URL("../src/csv/record-kernel.wasm", import.meta.url));
// `stub`: the kernel allocates nothing; no assertions: it reads only bytes it was given; SIMD
// (fixed-width, in every V8 that workerd ships) for the 16-bytes-at-a-time scans.
const OPTIONS = ["--optimizeLevel", "3", "--shrinkLevel", "0", "--runtime", "stub", "--noAssert", "--enable", "simd"];

const built = new Map<string, Uint8Array>();
const { error } = await asc.main([SOURCE, "--outFile", "kernel.wasm", ...OPTIONS], {
  stderr: process.stderr,
  writeFile: (name: string, contents: Uint8Array | string) => {
    built.set(name, typeof contents === "string" ? new TextEncoder().encode(contents) : contents);
  },
});
if (error) process.exit(1);
const wasm = built.get("kernel.wasm");
if (!wasm) throw new Error("asc wrote no kernel.wasm");

if (process.argv.includes("--check")) {
  const committed = readFileSync(BINARY);
  if (!committed.equals(wasm)) {
    process.stderr.write("src/csv/record-kernel.wasm is not the build of record-kernel.as.ts: run `npm run build:kernel` and commit it\n");
    process.exit(1);
  }
} else {
  writeFileSync(BINARY, wasm);
  process.stdout.write(`src/csv/record-kernel.wasm: ${wasm.length} bytes\n`);
}
