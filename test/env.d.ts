declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** The real local Rate Limiting binding with a limit of 3 a minute (vitest.config.ts). */
    TEST_LOW_RATE_LIMIT: RateLimit;
    TEST_LOW_RATE_LIMIT_QUOTA: string;
    UNMIGRATED_DB: D1Database;
  }
}

/** Vite's `?raw` import: a file's text (test/auth.readme-example.test.ts reads README.md). */
declare module "*.md?raw" {
  const text: string;
  export default text;
}
