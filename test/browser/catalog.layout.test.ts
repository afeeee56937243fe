// The catalog's layout at phone (390 px) and desktop (1280 px) widths in Chromium: the page
// itself never scrolls sideways, wide previews scroll inside their own box, controls stay
// big enough to tap. PUBSET_SCREENSHOTS=1 keeps a screenshot of every view for a human look.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { e2eServer, type E2eServer } from "../node/helpers/shared-server.ts";
import { describeInChromium, launchChromium, type Chromium } from "./helpers/chromium.ts";
import { pagePerTest } from "./helpers/page-per-test.ts";
import { publish, type Published } from "./helpers/publish.ts";
import { keepScreenshots, screenshot } from "./helpers/screenshots.ts";

const WIDTHS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 900 },
] as const;

function wideCsv(rows: number): string {
  const columns = ["station_id", "station_name", "country", "latitude", "longitude", "elevation_m", "first_year", "last_year", "mean_temp_c", "notes"];
  const lines = [columns.join(",")];
  for (let r = 0; r < rows; r++) {
    lines.push([`ST${1000 + r}`, `Weather station number ${r}`, "Switzerland", (46 + r / 100).toFixed(4), (7 + r / 100).toFixed(4), 400 + r, 1901 + (r % 50), 2026, (8 + (r % 10) / 10).toFixed(1), `"Moved in ${1950 + (r % 40)}, see the station history"`].join(","));
  }
  return lines.join("\n") + "\n";
}

/** Layout facts of the current page, measured in the browser. */
async function measure(page: Page) {
  return page.evaluate(() => {
    const region = document.querySelector<HTMLElement>("div.scroll[aria-labelledby='preview-caption']");
    const button = document.querySelector<HTMLElement>("form.search button");
    return {
      viewport: window.innerWidth,
      documentWidth: document.documentElement.scrollWidth,
      bodyFontPx: parseFloat(getComputedStyle(document.body).fontSize),
      region: region ? { scrollWidth: region.scrollWidth, clientWidth: region.clientWidth, right: region.getBoundingClientRect().right } : null,
      buttonHeight: button ? button.getBoundingClientRect().height : null,
    };
  });
}

describeInChromium("catalog layout in Chromium", () => {
  let server: E2eServer & { stop(): Promise<void> };
  let browser: Chromium;
  let stations: Published;

  beforeAll(async () => {
    [server, browser] = await Promise.all([e2eServer(), launchChromium()]);
    await publish(server, { name: "Alpine lakes", visibility: "public", properties: { description: "Area and depth of the larger Alpine lakes.", key_words: ["hydrology", "lakes", "alps"] } }, "lake,area_km2\nGeneva,580\n", "lakes.csv");
    stations = await publish(
      server,
      {
        name: "Weather stations of Switzerland",
        visibility: "public",
        properties: { description: "Location, elevation and history of 150 weather stations.\nUpdated monthly.", key_words: ["climate", "weather", "stations", "switzerland"], contact_name: "Climate desk" },
      },
      wideCsv(150),
      "stations.csv",
    );
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const page = pagePerTest(() => browser.context);

  it("the API reference (/docs) reads as plain HTML at phone width when Scalar's CDN is out of reach", async () => {
    const operations = Object.values(((await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, object> }).paths)
      .map((item) => Object.keys(item).length)
      .reduce((a, b) => a + b, 0);
    // Its own tab: the aborted CDN script is an expected console error here.
    const p = await browser.context.newPage();
    try {
      await p.route("https://cdn.jsdelivr.net/**", (route) => route.abort());
      await p.setViewportSize({ width: 390, height: 844 });
      await p.goto(`${server.url}/docs`);
      await expect.poll(() => p.locator("#static-reference").isVisible()).toBe(true);
      expect(await p.locator("h1").textContent()).toBe("pubset API reference");
      expect(await p.locator("#static-reference h2[id^=op-]").count()).toBe(operations);
      expect(await p.getByText("Signing requests (RFC 9421, hmac-sha256)").count()).toBe(1);
      const widths = await p.evaluate(() => ({ viewport: window.innerWidth, document: document.documentElement.scrollWidth }));
      expect(widths.document).toBeLessThanOrEqual(widths.viewport);
      if (keepScreenshots()) await screenshot(p, "docs-390");
    } finally {
      await p.close();
    }
  });

  for (const size of WIDTHS) {
    it(`home page at ${size.name} width (${size.width}px) fits without sideways scrolling`, async () => {
      const p = page();
      await p.setViewportSize({ width: size.width, height: size.height });
      await p.goto(`${server.url}/`);
      const m = await measure(p);
      expect(m.documentWidth).toBeLessThanOrEqual(m.viewport);
      expect(m.bodyFontPx).toBeGreaterThanOrEqual(16);
      expect(m.buttonHeight).toBeGreaterThanOrEqual(44);
      if (keepScreenshots()) await screenshot(p, `home-${size.width}`);
    });

    it(`dataset page at ${size.name} width (${size.width}px): the preview scrolls inside its own box`, async () => {
      const p = page();
      await p.setViewportSize({ width: size.width, height: size.height });
      await p.goto(`${server.url}/datasets/${stations.id}`);
      const m = await measure(p);
      expect(m.documentWidth).toBeLessThanOrEqual(m.viewport);
      expect(m.region).not.toBeNull();
      expect(m.region!.right).toBeLessThanOrEqual(m.viewport);
      if (size.width < 600) expect(m.region!.scrollWidth).toBeGreaterThan(m.region!.clientWidth);
      expect(await p.locator("table:has(#preview-caption) tbody tr").count()).toBe(100);
      if (keepScreenshots()) await screenshot(p, `dataset-${size.width}`);
    });
  }
});

