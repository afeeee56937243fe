// /docs with its CDN out of reach (offline, or behind a strict proxy), at phone width, with
// JavaScript on as any visitor has it: the plain reference must read as a document — Markdown
// rendered as headings, lists and code, each write's multipart parts with their media types,
// the catalog's site header — fit the screen, and break no rule of its own policy.
import { afterAll, beforeAll, expect, it } from "vitest";
import { SCALAR_URL } from "../../src/openapi/reference-page.tsx";
import { e2eServer, type E2eServer } from "../node/helpers/shared-server.ts";
import { describeInChromium, launchChromium, type Chromium } from "./helpers/chromium.ts";
import { pagePerTest } from "./helpers/page-per-test.ts";
import { keepScreenshots, screenshot } from "./helpers/screenshots.ts";

describeInChromium("/docs offline in Chromium", () => {
  let server: E2eServer & { stop(): Promise<void> };
  let browser: Chromium;
  const blocked: string[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([e2eServer(), launchChromium({ javaScript: true })]);
    await browser.context.route("https://cdn.jsdelivr.net/**", (route) => {
      blocked.push(route.request().url());
      return route.abort("internetdisconnected");
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  // The one error the page may log: the CDN script it could not fetch.
  const page = pagePerTest(() => browser.context, { expectedError: (message) => message.location().url === SCALAR_URL });

  it("renders its Markdown, the writes' parts and the site header, within a phone's width", async () => {
    const p = page();
    await p.setViewportSize({ width: 390, height: 844 });
    const response = await p.goto(`${server.url}/docs`);
    expect(response?.status()).toBe(200);
    await p.waitForLoadState("load");
    expect(blocked).toContain(SCALAR_URL);

    const reference = p.locator("#static-reference");
    expect(await reference.isVisible()).toBe(true);
    expect(await p.locator("header.site a.brand").textContent()).toBe("pubset");
    expect(await p.locator("header.site nav a").allTextContents()).toEqual(["Datasets", "API reference"]);

    expect(await reference.locator("h2", { hasText: "Signing requests (RFC 9421, hmac-sha256)" }).count()).toBe(1);
    expect(await reference.locator("h2", { hasText: /^Errors$/ }).count()).toBe(1);
    const steps = reference.locator("ol").first().locator("li");
    expect(await steps.count()).toBe(3);
    expect(await steps.nth(0).locator("code").first().textContent()).toMatch(/^Content-Digest: sha-256=/);
    const text = (await reference.innerText()).split("\n");
    expect(text.filter((line) => line.startsWith("#") || line.includes("`"))).toEqual([]);

    for (const operation of ["POST /v1/dataset", "PUT /v1/dataset/{id}", "POST /v1/dataset/{id}"]) {
      const parts = p.getByRole("region", { name: `Parts of ${operation}`, exact: true });
      const rows = await parts.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll("td"), (td) => td.textContent)));
      expect(rows.map((row) => row.slice(0, 2))).toEqual([
        ["collection", "application/json"],
        ["dataset", "text/csv, application/gzip"],
      ]);
    }

    const widths = await p.evaluate(() => ({ viewport: window.innerWidth, document: document.documentElement.scrollWidth }));
    expect(widths.document, "the page never scrolls sideways").toBeLessThanOrEqual(widths.viewport);
    const fontPx = await reference.locator("p").first().evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
    expect(fontPx).toBeGreaterThanOrEqual(16);
    if (keepScreenshots()) await screenshot(p, "docs-offline-phone");
  });
});
