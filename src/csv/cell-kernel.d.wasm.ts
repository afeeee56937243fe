// The type of `import kernelModule from "./cell-kernel.wasm"`: wrangler and the vitest plugin
// load a .wasm import as a compiled WebAssembly.Module (workerd compiles no code at run time).
declare const kernelModule: WebAssembly.Module;
export default kernelModule;
