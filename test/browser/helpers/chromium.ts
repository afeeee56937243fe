// Headless Chromium from Debian's `chromium` package, driven by playwright-core (which never
// downloads a browser). Without /usr/bin/chromium the browser tests skip with a message —
// except in CI, where .ci/run installs it and its absence is a failure.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";
import { describe, expect, it } from "vitest";

export const CHROMIUM_PATH = "/usr/bin/chromium";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function inCi(): boolean {
  const ci = (process.env.CI ?? "").toLowerCase();
  return ci !== "" && ci !== "false" && ci !== "0";
}

export type ChromiumAvailability = { run: true } | { run: false; reason: string; fail: boolean };

export function chromiumAvailability(): ChromiumAvailability {
  if (existsSync(CHROMIUM_PATH)) return { run: true };
  const install = "apt-get install -y chromium";
  if (inCi()) return { run: false, fail: true, reason: `CI=true but ${CHROMIUM_PATH} is missing; .ci/run should have run \`${install}\`` };
  return { run: false, fail: false, reason: `browser tests skipped: ${CHROMIUM_PATH} not found (install it with \`${install}\`)` };
}

/** `describe` that runs only with Chromium; without it, a skipped test (in CI, a failing one) says why. */
export function describeInChromium(name: string, body: () => void): void {
  const availability = chromiumAvailability();
  if (availability.run) {
    describe(name, body);
    return;
  }
  if (!availability.fail) console.warn(availability.reason);
  describe(availability.reason, () => {
    if (availability.fail) it("Chromium is installed in CI", () => expect.fail(availability.reason));
    else it.skip(name, () => {});
  });
}

export interface Chromium {
  context: BrowserContext;
  close(): Promise<void>;
}

export interface LaunchOptions {
  /** Run the pages' JavaScript (default: no — the catalog must work without it). */
  javaScript?: boolean;
}

/** A fresh browser with its own throw-away profile directory (`--user-data-dir`). */
export async function launchChromium(options: LaunchOptions = {}): Promise<Chromium> {
  const profile = mkdtempSync(join(tmpdir(), "pubset-chromium-"));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ARGS,
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
      // The catalog must work without JavaScript, so by default the browser runs none of the page's.
      javaScriptEnabled: options.javaScript ?? false,
    });
    return {
      context,
      close: async () => {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error: unknown) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}
