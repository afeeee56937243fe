// The type of `import typedModule from "./typed-kernel.wasm"`: wrangler and the vitest plugin
// load a .wasm import as a compiled WebAssembly.Module (workerd compiles no code at run time).
declare const typedModule: WebAssembly.Module;
export default typedModule;
