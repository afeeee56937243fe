// The type of `import snappyModule from "./snappy-kernel.wasm"`: wrangler and the vitest plugin
// load a .wasm import as a compiled WebAssembly.Module (workerd compiles no code at run time).
declare const snappyModule: WebAssembly.Module;
export default snappyModule;
