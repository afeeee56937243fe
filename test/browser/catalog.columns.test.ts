// The dataset page's column summaries in Chromium at phone (390 px) and desktop (1280 px)
// widths: every column has its card, the histograms are drawn (inline SVG, no script, nothing
// blocked by the CSP), each chart is named for a screen reader and opens its table of bins from
// the keyboard, and neither the cards nor their tables push the page sideways.
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

const COLUMNS = ["survey_site_with_a_rather_long_descriptive_name", "depth_m", "area_km2", "surveyed", "open_to_swimming", "notes"];

function surveyCsv(rows: number): string {
  const lines = [COLUMNS.join(",")];
  for (let r = 0; r < rows; r++) {
    const site = ["Lac Léman — Ouchy", "Bodensee", "Lago Maggiore", "Zürichsee"][r % 4];
    const notes = r % 5 === 0 ? "" : `"A long remark about the survey of row ${r}, which goes on: ${"and on ".repeat(8)}"`;
    lines.push([site, 10 + ((r * 37) % 300), ((r * 7919) % 580) / 3, `2024-${String(1 + (r % 12)).padStart(2, "0")}-15`, r % 3 === 0 ? "false" : "true", notes].join(","));
  }
  return lines.join("\n") + "\n";
}

describeInChromium("column summaries in Chromium", () => {
  let server: E2eServer & { stop(): Promise<void> };
  let browser: Chromium;
  let survey: Published;

  beforeAll(async () => {
    [server, browser] = await Promise.all([e2eServer(), launchChromium()]);
    survey = await publish(server, { name: "Swiss lake survey", visibility: "public" }, surveyCsv(120), "survey.csv");
    // The twin (and with it the statistics) is built by the after-commit queue, a moment after the write.
    const statistics = `${server.url}/v1/dataset/${survey.id}/${survey.version}/statistics`;
    for (const deadline = Date.now() + 60_000; (await fetch(statistics)).status !== 200; ) {
      if (Date.now() > deadline) throw new Error("the statistics were not built within 60 s");
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const page = pagePerTest(() => browser.context);

  /** Layout facts: the page's and each card's and chart's extent. */
  const measure = (p: Page) =>
    p.evaluate(() => {
      const box = (e: Element) => e.getBoundingClientRect();
      return {
        viewport: window.innerWidth,
        documentWidth: document.documentElement.scrollWidth,
        cards: Array.from(document.querySelectorAll("ol.cols > li"), (li) => ({ left: box(li).left, right: box(li).right, scrollWidth: li.scrollWidth, clientWidth: li.clientWidth })),
        charts: Array.from(document.querySelectorAll("svg.hist"), (svg) => ({ width: box(svg).width, height: box(svg).height, bars: (svg.querySelector("path")?.getAttribute("d") ?? "").split("z").length - 1 })),
      };
    });

  for (const size of WIDTHS) {
    it(`at ${size.name} width (${size.width}px): a card per column, drawn charts, no sideways scrolling`, async () => {
      const p = page();
      await p.setViewportSize({ width: size.width, height: size.height });
      await p.goto(`${server.url}/datasets/${survey.id}`);
      expect(await p.locator("ol.cols > li h3").allTextContents()).toEqual([
        `${COLUMNS[0]} string`,
        "depth_m integer",
        "area_km2 number",
        "surveyed date",
        "open_to_swimming boolean",
        "notes string",
      ]);
      const m = await measure(p);
      expect(m.documentWidth).toBeLessThanOrEqual(m.viewport);
      for (const card of m.cards) {
        expect(card.left).toBeGreaterThanOrEqual(0);
        expect(card.right).toBeLessThanOrEqual(m.viewport);
        expect(card.scrollWidth).toBeLessThanOrEqual(card.clientWidth);
      }
      // One card a row on a phone, several side by side on a desktop.
      const lefts = new Set(m.cards.map((c) => Math.round(c.left)));
      expect(lefts.size).toBe(size.width < 600 ? 1 : 3);
      // Integer, number and date columns: a histogram with its bars, visibly drawn.
      expect(m.charts.length).toBe(3);
      for (const chart of m.charts) {
        expect(chart.width).toBeGreaterThan(200);
        expect(chart.height).toBeGreaterThan(40);
        expect(chart.bars).toBeGreaterThan(2);
      }
      // Text: the sites are the most frequent values; the notes all differ, and say so.
      const site = p.locator("ol.cols > li").nth(0);
      expect(await site.locator("table tbody th").allTextContents()).toEqual(["Bodensee", "Lac Léman — Ouchy", "Lago Maggiore", "Zürichsee"]);
      expect(await site.locator("table tbody td").allTextContents()).toEqual(["30", "30", "30", "30"]);
      expect(await p.locator("ol.cols > li").nth(5).textContent()).toContain("Every value is different.");
      if (keepScreenshots()) await screenshot(p, `columns-${size.width}`);
    });

    it(`at ${size.name} width (${size.width}px): each chart is named for a screen reader and its bins open from the keyboard`, async () => {
      const p = page();
      await p.setViewportSize({ width: size.width, height: size.height });
      await p.goto(`${server.url}/datasets/${survey.id}`);
      const depth = p.locator("ol.cols > li").nth(1);
      // What assistive technology is given: the image's name, then the disclosure.
      const tree = await depth.ariaSnapshot();
      expect(tree).toMatch(/img "Histogram of depth_m: 120 values in 10 equal bins from 10 to 307; the tallest, [^"]+ holds \d+\."/);
      // The disclosure's marker is drawn, not text, so nothing but the words is read out.
      expect(tree).toMatch(/- group:\n\s+- '?img [^\n]*\n\s+- text: Counts per bin(\n|$)/);
      await expect.poll(() => depth.locator("table").isVisible()).toBe(false);

      // Tab from the top of the page until the depth chart's disclosure has focus, then open it.
      await p.locator("body").focus();
      let reached = false;
      for (let i = 0; i < 80 && !reached; i++) {
        await p.keyboard.press("Tab");
        reached = await depth.locator("details > summary").evaluate((summary) => summary === document.activeElement);
      }
      expect(reached).toBe(true);
      const ring = await depth.locator("details > summary").evaluate((summary) => getComputedStyle(summary).outlineStyle);
      expect(ring).toBe("solid");
      await p.keyboard.press("Enter");
      const table = depth.locator("table");
      await expect.poll(() => table.isVisible()).toBe(true);
      const counts = (await table.locator("tbody td").allTextContents()).map(Number);
      expect(counts.length).toBe(10);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(120);
      expect(await table.locator("caption").textContent()).toBe("Values per bin");
      const m = await measure(p);
      expect(m.documentWidth).toBeLessThanOrEqual(m.viewport);
      if (keepScreenshots()) await screenshot(p, `columns-open-${size.width}`);

      // In a forced-colours (high contrast) mode the bars take the text colour, so they stay visible.
      await p.emulateMedia({ forcedColors: "active" });
      const colours = await depth.locator("svg.hist path").evaluate((path) => ({ fill: getComputedStyle(path).fill, text: getComputedStyle(document.body).color }));
      expect(colours.fill).toBe(colours.text);
    });
  }
});
