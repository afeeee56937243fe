import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { startDohResponder } from "./test/node/helpers/doh-responder.ts";
import { startWebhookReceiver } from "./test/node/helpers/webhook-receiver.ts";
import { wasmModules } from "./test/node/helpers/wasm-modules.ts";

// Three projects: `workers` runs inside workerd with the real local D1 and R2 that wrangler.toml
// declares (migrations applied by test/setup.ts); `node` runs what must live outside the worker:
// the keys CLI, `npm start` end to end over HTTP, and Node's zlib reading our gzip; `browser`
// drives headless Chromium (/usr/bin/chromium) through the catalog and the TypeScript client,
// both against `npm start`.
export default defineConfig({
  test: {
    // Three test files at a time, whatever the project: vitest's default on a 2-core machine is
    // one (cores - 1), which left the cores idle while the end-to-end files wait on wrangler dev
    // and their servers; three beat two there (docs/performance.md "Test suite").
    // Every workers file has its own workerd and storage; the node and browser files share one
    // `npm start`, each file with data of its own (docs/performance.md "Test suite").
    maxWorkers: 3,
    projects: [
      {
        plugins: [
          cloudflareTest(async () => ({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                // Webhooks deliver to a receiver on 127.0.0.1 (test/node/helpers/webhook-receiver.ts)
                // through the real local queue, as `npm start` allows (docs/changes.md "Webhook safety").
                WEBHOOKS_ALLOW_LOCALHOST: "true",
                TEST_WEBHOOK_RECEIVER: (await startWebhookReceiver()).origin,
                // A webhook host's addresses are looked up before each delivery; here a local
                // DNS-over-HTTPS server answers from a zone the tests set (test/node/helpers/doh-responder.ts).
                ...(await startDohResponder().then(({ origin }) => ({ DOH_URL: `${origin}/dns-query`, TEST_DOH_RESPONDER: origin }))),
                TEST_MIGRATIONS: await readD1Migrations("./migrations"),
                KEY_ENCRYPTION_KEY: "dGVzdC1vbmx5LWtleS1lbmNyeXB0aW9uLWtleS0zMmI=",
                // Lower than production so size-limit tests stay fast; see test/ingest.limits.test.ts.
                MAX_UPLOAD_BYTES: "33554432",
                MAX_CONTENT_BYTES: "67108864",
                // One byte, so the protocol tests can cut a CSV anywhere into chunks of a few
                // bytes; test/uploads.bounds.test.ts passes the production bound to the worker.
                MIN_UPLOAD_CHUNK_BYTES: "1",
                // The origin test requests are sent to (test/helpers/http.ts ORIGIN), as npm start sets its own.
                PUBLIC_ORIGIN: "https://pubset.test",
                // Workers Cache does not exist in workerd; the in-worker stand-in does (docs/edge-and-caching.md).
                EDGE_CACHE: "in-worker",
                // Matches the raised limits below; test/rate-limit.test.ts uses the low ones.
                RATE_LIMIT_SIGNED: "100000/60",
                RATE_LIMIT_ANONYMOUS: "100000/60",
                TEST_LOW_RATE_LIMIT_QUOTA: "3/60",
              },
              // Every test file's requests come from one address; the real limits would throttle
              // the suite. The low limiter is the real binding with a quota a test can exhaust.
              ratelimits: {
                SIGNED_RATE_LIMIT: { namespace_id: "1001", simple: { limit: 100000, period: 60 } },
                ANONYMOUS_RATE_LIMIT: { namespace_id: "1002", simple: { limit: 100000, period: 60 } },
                TEST_LOW_RATE_LIMIT: { namespace_id: "9001", simple: { limit: 3, period: 60 } },
              },
              // A D1 that no migration touches: what a plain `wrangler dev` on a fresh clone
              // has (test/setup.problems.test.ts).
              d1Databases: { UNMIGRATED_DB: "unmigrated-db" },
            },
          })),
        ],
        test: {
          name: "workers",
          include: ["test/*.test.ts"],
          setupFiles: ["./test/setup.ts"],
          // A hang guard, not a speed check (speed is `npm run bench`): the 20 MB ingest tests
          // take 4 s on an idle 2-core machine and more under load, past vitest's 5 s default.
          testTimeout: 60_000,
        },
      },
      {
        plugins: [wasmModules()],
        test: {
          name: "node",
          include: ["test/node/**/*.test.ts"],
          globalSetup: ["./test/node/helpers/shared-server.ts"],
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          globalSetup: ["./test/node/helpers/shared-server.ts"],
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
