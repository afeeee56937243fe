// A fresh tab for every test: console errors (a CSP violation, a failed sub-resource) fail
// the test, and a failing test leaves a full-page screenshot in test/browser/screenshots/.
import type { BrowserContext, ConsoleMessage, Page } from "playwright-core";
import { afterEach, beforeEach, expect } from "vitest";
import { screenshot } from "./screenshots.ts";

export interface PagePerTestOptions {
  /** True for a console error the test provokes on purpose; keep it as narrow as possible. */
  expectedError?: (message: ConsoleMessage) => boolean;
}

export function pagePerTest(context: () => BrowserContext, options: PagePerTestOptions = {}): () => Page {
  let page: Page | undefined;
  let problems: string[] = [];
  beforeEach(async () => {
    problems = [];
    page = await context().newPage();
    const tab = page;
    page.on("console", (message) => {
      if (message.type() !== "error") return;
      // A 404 page is an expected status of the document itself, not a problem on it.
      if (message.text().startsWith("Failed to load resource") && message.location().url === tab.url()) return;
      if (options.expectedError?.(message)) return;
      problems.push(`${message.text()} (${message.location().url})`);
    });
    page.on("pageerror", (error) => problems.push(error.message));
  });
  afterEach(async ({ task }) => {
    const current = page;
    page = undefined;
    if (!current) return;
    if (task.result?.state === "fail") {
      const path = await screenshot(current, `failed-${task.name}`).catch(() => null);
      if (path) console.error(`screenshot of the failure: ${path}`);
    }
    await current.close();
    expect(problems, "console errors (CSP violations show up here)").toEqual([]);
  });
  return () => {
    if (!page) throw new Error("no page outside a test");
    return page;
  };
}
