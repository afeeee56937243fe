declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
  }
}

/** Vite's `?raw` import: a file's text (test/auth.readme-example.test.ts reads README.md). */
declare module "*.md?raw" {
  const text: string;
  export default text;
}
