// The catalog as a reader sees it, on a 390 px phone screen and a desktop one, in Chromium
// against `npm start`: a dataset's licence, linked, beside its title; the /docs tables wrapping
// at word boundaries; command boxes keeping their commands inside the box; a title with no
// invisible characters.
import { afterAll, beforeAll, expect, it } from "vitest";
import { e2eServer, type E2eServer } from "../node/helpers/shared-server.ts";
import { describeInChromium, launchChromium, type Chromium } from "./helpers/chromium.ts";
import { pagePerTest } from "./helpers/page-per-test.ts";
import { publish, type Published } from "./helpers/publish.ts";

const PHONE = { width: 390, height: 844 };
const CSV = "station,reading\nNorth,12.5\nSouth,9.25\n";

describeInChromium("the catalog on a phone and a desktop", () => {
  let server: E2eServer & { stop(): Promise<void> };
  let browser: Chromium;
  let spdx: Published;
  let byUrl: Published;

  beforeAll(async () => {
    [server, browser] = await Promise.all([e2eServer(), launchChromium()]);
    spdx = await publish(server, { name: "Licensed readings", visibility: "public", properties: { license: "cc-by-4.0" } }, CSV, "readings.csv");
    byUrl = await publish(server, { name: "Readings under terms", visibility: "public", properties: { license: "https://example.org/terms" } }, CSV, "terms.csv");
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const page = pagePerTest(() => browser.context);

  for (const viewport of [PHONE, { width: 1280, height: 900 }]) {
    it(`shows the licence linked beside the title (${viewport.width} px)`, async () => {
      const p = page();
      await p.setViewportSize(viewport);
      await p.goto(`${server.url}/datasets/${spdx.id}`);
      const link = p.locator('.title-row a[rel="license"]');
      expect(await link.textContent()).toBe("CC-BY-4.0");
      expect(await link.getAttribute("href")).toBe("https://spdx.org/licenses/CC-BY-4.0.html");
      // Beside the title: right after it, within the page's width, not pushed off screen.
      const title = (await p.locator("h1").boundingBox())!;
      const licence = (await link.boundingBox())!;
      expect(licence.y).toBeLessThan(title.y + title.height + 40);
      expect(licence.x + licence.width).toBeLessThanOrEqual(viewport.width);
      await p.goto(`${server.url}/datasets/${byUrl.id}`);
      expect(await p.locator('.title-row a[rel="license"]').getAttribute("href")).toBe("https://example.org/terms");
    });
  }

  it("/docs tables on a phone break lines only between words", async () => {
    const p = page();
    await p.setViewportSize(PHONE);
    await p.goto(`${server.url}/docs`);
    // Every word of a cell (a run of letters and digits; a line may break at the punctuation
    // between words, as after the hyphen of Content-Digest) must sit on one line.
    const split = await p.evaluate(() => {
      const broken: string[] = [];
      let pieces = 0;
      for (const cell of Array.from(document.querySelectorAll(".reference td, .reference th"))) {
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
          const text = node.textContent ?? "";
          for (const match of text.matchAll(/[\p{L}\p{N}]+/gu)) {
            pieces++;
            const range = document.createRange();
            range.setStart(node, match.index);
            range.setEnd(node, match.index + match[0].length);
            const lines = new Set(Array.from(range.getClientRects()).filter((r) => r.width > 0).map((r) => Math.round(r.top)));
            if (lines.size > 1) broken.push(match[0]);
          }
        }
      }
      return { pieces, broken };
    });
    expect(split.pieces).toBeGreaterThan(100);
    expect(split.broken).toEqual([]);
  });

  it("keeps each command inside its box on a phone, whole when copied, and the title plain", async () => {
    const p = page();
    await p.setViewportSize(PHONE);
    await p.goto(`${server.url}/datasets/${spdx.id}`);
    const box = await p.locator("pre").first().evaluate((pre) => {
      const rect = pre.getBoundingClientRect();
      return { right: rect.right, scrollWidth: pre.scrollWidth, clientWidth: pre.clientWidth, text: pre.textContent ?? "", page: document.documentElement.scrollWidth };
    });
    expect(box.scrollWidth).toBeLessThanOrEqual(box.clientWidth);
    expect(box.right).toBeLessThanOrEqual(PHONE.width);
    expect(box.page).toBeLessThanOrEqual(PHONE.width);
    // Wrapped on screen, yet one line per command in the text a reader copies.
    expect(box.text.split("\n").find((line) => line.startsWith("curl "))).toMatch(/^curl -fL --compressed -o \S+ http:\/\/\S+\/latest\/readings\.csv\S*$/);
    expect(await p.title()).toBe("Licensed readings · pubset");
    expect(await p.title()).not.toMatch(/[\u2066-\u2069\u200e\u200f]/);
  });

  it("shows no licence line when the dataset names none", async () => {
    const p = page();
    const plain = await publish(server, { name: "Unlicensed readings", visibility: "public" }, CSV, "plain.csv");
    await p.goto(`${server.url}/datasets/${plain.id}`);
    expect(await p.locator(".license").count()).toBe(0);
  });
});
