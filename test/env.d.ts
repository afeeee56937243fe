declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** The real local Rate Limiting binding with a limit of 3 a minute (vitest.config.ts). */
    TEST_LOW_RATE_LIMIT: RateLimit;
    TEST_LOW_RATE_LIMIT_QUOTA: string;
    /** The webhook receiver on 127.0.0.1 (test/node/helpers/webhook-receiver.ts). */
    TEST_WEBHOOK_RECEIVER: string;
    /** The DNS-over-HTTPS server DOH_URL points at, whose zone a test sets (test/node/helpers/doh-responder.ts). */
    TEST_DOH_RESPONDER: string;
    UNMIGRATED_DB: D1Database;
  }
}

/** Vite's `?raw` import: a file's text (test/auth.readme-example.test.ts reads docs/api.md). */
declare module "*.md?raw" {
  const text: string;
  export default text;
}

/** jsonld.js's browser build, which runs in workerd (its Node entry needs undici); only what the tests call. */
declare module "jsonld/dist/jsonld.esm.js" {
  interface RemoteDocument {
    contextUrl: string | null;
    documentUrl: string;
    document: unknown;
  }
  interface Options {
    base?: string;
    documentLoader?: (url: string) => Promise<RemoteDocument>;
    /** Throw instead of silently dropping what does not expand (jsonld.js ≥ 8). */
    safe?: boolean;
  }
  const jsonld: {
    expand(input: unknown, options?: Options): Promise<Array<Record<string, unknown>>>;
    flatten(input: unknown, context: null, options?: Options): Promise<Array<Record<string, unknown>>>;
  };
  export default jsonld;
}
