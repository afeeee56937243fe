// The catalog in a real browser against `npm start` over HTTP: search, open a dataset, read
// its preview, download its CSV and gzip, use it by keyboard alone — and never see a private
// dataset. No JavaScript is needed, so none is enabled.
import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, expect, it } from "vitest";
import { e2eServer, type E2eServer } from "../node/helpers/shared-server.ts";
import { describeInChromium, launchChromium, type Chromium } from "./helpers/chromium.ts";
import { publish, type Published } from "./helpers/publish.ts";
import { pagePerTest } from "./helpers/page-per-test.ts";

const CSV = "river,country,length_km\nRhine,CH/DE/NL,1233\nDanube,DE/AT/HU,2850\nLoire,FR,1006\n";

describeInChromium("catalog in Chromium", () => {
  let server: E2eServer & { stop(): Promise<void> };
  let browser: Chromium;
  let rivers: Published;
  let secret: Published;

  beforeAll(async () => {
    [server, browser] = await Promise.all([e2eServer(), launchChromium()]);
    rivers = await publish(server, { name: "Rivers of Europe", visibility: "public", properties: { description: "Long rivers, by length", key_words: ["potamology", "waterways"], contact_name: "Ada" } }, CSV, "rivers.csv");
    secret = await publish(server, { name: "Secret waterways", visibility: "private", properties: { key_words: ["waterways"] } }, "a\n1\n", "secret.csv");
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const page = pagePerTest(() => browser.context);

  it("searches, opens a dataset and shows its metadata and preview rows", async () => {
    const p = page();
    await p.goto(`${server.url}/`);
    expect(await p.locator("h1").textContent()).toBe("Public datasets");
    expect(await p.locator(".skip").evaluate((el) => getComputedStyle(el).position), "the inline stylesheet applies under the CSP").toBe("absolute");
    await p.getByLabel("Search datasets").fill("waterways");
    await p.getByRole("button", { name: "Search" }).click();
    await p.waitForURL(/\?q=waterways/);
    const results = p.locator("ol.datasets > li h2 a");
    expect(await results.allTextContents()).toEqual(["Rivers of Europe"]);
    await results.first().click();
    await p.waitForURL(`${server.url}/datasets/${rivers.id}`);
    expect(await p.locator("h1").textContent()).toBe("Rivers of Europe");
    expect(await p.locator("dl.meta").textContent()).toContain("Ada");
    const cells = await p.locator("table:has(#preview-caption) tbody tr").evaluateAll((rows) => rows.map((row) => Array.from(row.querySelectorAll("td"), (td) => td.textContent)));
    expect(cells).toEqual([
      ["Rhine", "CH/DE/NL", "1233"],
      ["Danube", "DE/AT/HU", "2850"],
      ["Loire", "FR", "1006"],
    ]);
  });

  it("downloads the CSV and the gzip from the dataset page", async () => {
    const p = page();
    await p.goto(`${server.url}/datasets/${rivers.id}`);
    // Clicked more than once: the second and later downloads come from the worker's cache,
    // which once sent them gzip inside gzip (issue 10).
    for (let click = 1; click <= 3; click++) {
      const [csv] = await Promise.all([p.waitForEvent("download"), p.getByRole("link", { name: /^Download CSV/ }).click()]);
      expect(csv.suggestedFilename()).toBe("rivers.csv");
      expect(await readFile(await csv.path(), "utf8"), `click ${click}`).toBe(CSV);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const [gzip] = await Promise.all([p.waitForEvent("download"), p.getByRole("link", { name: /^Download gzip/ }).click()]);
    expect(gzip.suggestedFilename()).toBe("rivers.csv.gz");
    expect(new URL(gzip.url()).pathname).toBe(rivers.source);
    expect(gunzipSync(await readFile(await gzip.path())).toString("utf8")).toBe(CSV);
  });

  it("never shows a private dataset: not listed, not found by search, its page a 404", async () => {
    const p = page();
    for (const path of ["/", "/?q=waterways", "/?q=secret", "/?team=demo"]) {
      await p.goto(server.url + path);
      expect(await p.content()).not.toContain("Secret waterways");
      expect(await p.content()).not.toContain(secret.id);
    }
    const response = await p.goto(`${server.url}/datasets/${secret.id}`);
    expect(response?.status()).toBe(404);
    expect(await p.locator("h1").textContent()).toBe("Dataset not found");
  });

  it("works by keyboard: skip link first, then the search box, Enter to search", async () => {
    const p = page();
    await p.goto(`${server.url}/`);
    await p.keyboard.press("Tab");
    expect(await p.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    const box = await p.locator(".skip").boundingBox();
    expect(box && box.x >= 0 && box.y >= 0, "the focused skip link is on screen").toBe(true);
    await p.keyboard.press("Enter");
    expect(await p.evaluate(() => document.activeElement?.id)).toBe("main");
    await p.keyboard.press("Tab");
    expect(await p.evaluate(() => document.activeElement?.id)).toBe("q");
    await p.keyboard.type("potamology");
    await p.keyboard.press("Enter");
    await p.waitForURL(/\?q=potamology/);
    expect(await p.locator("ol.datasets > li h2 a").allTextContents()).toEqual(["Rivers of Europe"]);
  });
});

