// Screenshots of the page under test: always on a failure, and of chosen views when
// PUBSET_SCREENSHOTS=1 (to look at the layout by eye). Kept in test/browser/screenshots/.
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";

export const SCREENSHOT_DIR = fileURLToPath(new URL("../screenshots/", import.meta.url));

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = `${SCREENSHOT_DIR}${name.replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 120)}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}

export function keepScreenshots(): boolean {
  return process.env.PUBSET_SCREENSHOTS === "1";
}
