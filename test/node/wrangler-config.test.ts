// wrangler.toml states each rate limit twice: the binding enforces it, the var reports it in the
// RateLimit fields (the binding cannot be read back). They must agree; Workers Cache must be on
// with cross_version_cache off (docs/edge-and-caching.md); twin builds' queue is not batched.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "./helpers/run-script.ts";

const toml = readFileSync(join(PROJECT_ROOT, "wrangler.toml"), "utf8");

describe("wrangler.toml", () => {
  it("reports the rate limits its bindings enforce", () => {
    for (const [binding, varName] of [
      ["SIGNED_RATE_LIMIT", "RATE_LIMIT_SIGNED"],
      ["ANONYMOUS_RATE_LIMIT", "RATE_LIMIT_ANONYMOUS"],
    ]) {
      const block = new RegExp(`name = "${binding}"\\nnamespace_id = "\\d+"\\nsimple = \\{ limit = (\\d+), period = (\\d+) \\}`).exec(toml);
      const reported = new RegExp(`^${varName} = "(\\d+)/(\\d+)"$`, "m").exec(toml);
      expect(block, binding).not.toBeNull();
      expect(reported, varName).not.toBeNull();
      expect(`${reported![1]}/${reported![2]}`).toBe(`${block![1]}/${block![2]}`);
    }
  });

  it("runs the purge drain every minute (PURGE_CRON in src/edge/purge-outbox.ts) and the clean-up every 30", () => {
    expect(toml).toMatch(/^crons = \["\* \* \* \* \*", "\*\/30 \* \* \* \*"\]$/m);
    expect(readFileSync(join(PROJECT_ROOT, "src", "edge", "purge-outbox.ts"), "utf8")).toContain('export const PURGE_CRON = "* * * * *";');
  });

  it("hands twin builds' messages over unbatched and retries them as TWIN_BUILD_ATTEMPTS says", () => {
    const consumer = /^\[\[queues\.consumers\]\]\nqueue = "pubset-twins"\nmax_batch_size = \d+\nmax_batch_timeout = (\d+)\nmax_retries = (\d+)$/m.exec(toml);
    expect(consumer).not.toBeNull();
    expect(consumer![1]).toBe("0");
    const attempts = /export const TWIN_BUILD_ATTEMPTS = (\d+);/.exec(readFileSync(join(PROJECT_ROOT, "src", "maintenance", "after-commit.ts"), "utf8"));
    expect(Number(consumer![2]) + 1).toBe(Number(attempts![1]));
    expect(toml).toMatch(/^\[\[queues\.producers\]\]\nbinding = "TWINS"\nqueue = "pubset-twins"$/m);
  });

  it("enables Workers Cache and keeps cross_version_cache off", () => {
    expect(toml).toMatch(/^\[cache\]\nenabled = true\ncross_version_cache = false$/m);
    expect(toml).toMatch(/^EDGE_CACHE = "workers-cache"$/m);
  });
});
