// The bench-only endpoints (src/routes/bench.ts) exist only under BENCH_ENDPOINTS=1, which
// `npm run bench` passes to wrangler dev: with the real configuration they are a plain 404.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { ORIGIN, send } from "./helpers/http.ts";

const BYTES = new TextEncoder().encode("id,name\n1,Ada\n".repeat(1000));

describe("/__bench", () => {
  it("is not found with the configuration a deployment uses", async () => {
    for (const path of ["/__bench/gzip", "/__bench/discard"]) {
      const response = await send("POST", path, { body: BYTES, headers: { "Content-Type": "text/csv" } });
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(((await response.json()) as { code: string }).code).toBe("not_found");
    }
  });

  it("gzips and counts the body when BENCH_ENDPOINTS is 1", async () => {
    const benchEnv = { ...env, BENCH_ENDPOINTS: "1" };
    const gzip = await createApp().fetch(new Request(`${ORIGIN}/__bench/gzip`, { method: "POST", body: BYTES }), benchEnv);
    expect(gzip.status).toBe(200);
    const counts = (await gzip.json()) as { inputBytes: number; outputBytes: number };
    expect(counts.inputBytes).toBe(BYTES.length);
    expect(counts.outputBytes).toBeGreaterThan(0);
    expect(counts.outputBytes).toBeLessThan(BYTES.length);
    const discard = await createApp().fetch(new Request(`${ORIGIN}/__bench/discard`, { method: "POST", body: BYTES }), benchEnv);
    expect(((await discard.json()) as { inputBytes: number }).inputBytes).toBe(BYTES.length);
  });
});
