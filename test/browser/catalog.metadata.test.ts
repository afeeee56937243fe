// A dataset page's JSON-LD in a real browser against `npm start` (docs/catalog.md#catalog-metadata): Chromium parses the
// page, the one `application/ld+json` block reads as JSON naming the page's downloads (which
// download the content) and columns, and a publisher's `</script>` stays inside it: JavaScript
// is on, so an escape would run, and the catalog's CSP would report it as a console error.
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, expect, it } from "vitest";
import { e2eServer, type E2eServer } from "../node/helpers/shared-server.ts";
import { describeInChromium, launchChromium, type Chromium } from "./helpers/chromium.ts";
import { pagePerTest } from "./helpers/page-per-test.ts";
import { publish, type Published } from "./helpers/publish.ts";

const CSV = "station,reading,taken\nNorth,12.5,2026-11-01\nSouth,9.25,2026-11-02\n";
const NAME = 'Readings </script><script>document.title="pwned"</script>';

interface PageDataset {
  "@context": string;
  "@type": string;
  name: string;
  url: string;
  version: string;
  distribution: Array<{ "@type": string; contentUrl: string; encodingFormat: string }>;
  variableMeasured: Array<{ name: string }>;
}

describeInChromium("dataset page JSON-LD in Chromium", () => {
  let server: E2eServer & { stop(): Promise<void> };
  let browser: Chromium;
  let readings: Published;

  beforeAll(async () => {
    [server, browser] = await Promise.all([e2eServer(), launchChromium({ javaScript: true })]);
    readings = await publish(server, { name: NAME, visibility: "public", properties: { description: "<!-- readings & more" } }, CSV, "readings.csv");
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const page = pagePerTest(() => browser.context);

  it("parses as a schema.org Dataset naming downloads that download the content", async () => {
    const p = page();
    await p.goto(`${server.url}/datasets/${readings.id}`);
    const blocks = await p.locator('script[type="application/ld+json"]').allTextContents();
    expect(blocks).toHaveLength(1);
    const dataset = JSON.parse(blocks[0]!) as PageDataset;
    expect(dataset["@context"]).toBe("https://schema.org");
    expect(dataset["@type"]).toBe("Dataset");
    expect(dataset.name).toBe(NAME);
    expect(dataset.url).toBe(`${server.url}/datasets/${readings.id}`);
    expect(dataset.version).toBe(readings.version);
    expect(dataset.variableMeasured.map((v) => v.name)).toEqual(["station", "reading", "taken"]);
    // The downloads it names are the page's own download buttons, and they download the content.
    const buttons = await p.locator("a.button").evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));
    expect(dataset.distribution.map((d) => d.contentUrl)).toEqual(buttons.slice(0, 3));
    for (const download of dataset.distribution) {
      const response = await fetch(download.contentUrl);
      if (download.encodingFormat === "application/vnd.apache.parquet") {
        // Built after the commit: here, or still pending (test/node/parquet.e2e.test.ts waits for it).
        expect([200, 503]).toContain(response.status);
        continue;
      }
      expect(response.status).toBe(200);
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(download.encodingFormat === "application/gzip" ? gunzipSync(bytes).toString("utf8") : bytes.toString("utf8")).toBe(CSV);
    }
  });

  it("keeps the publisher's </script> inside the block: nothing runs, the title is the page's", async () => {
    const p = page();
    await p.goto(`${server.url}/datasets/${readings.id}`);
    expect(await p.evaluate(() => document.scripts.length)).toBe(1);
    expect(await p.title()).toBe(`${NAME} · pubset`);
    expect(await p.locator("h1").textContent()).toBe(NAME);
  });

  it("links the version's documents as alternates, each served with its media type", async () => {
    const p = page();
    await p.goto(`${server.url}/datasets/${readings.id}`);
    const links = await p.locator('link[rel="alternate"]').evaluateAll((elements) =>
      elements.map((l) => ({ type: l.getAttribute("type") ?? "", href: (l as HTMLLinkElement).href })),
    );
    const base = `${server.url}/v1/dataset/${readings.id}/${readings.version}`;
    expect(links).toEqual([
      { type: "application/json", href: `${base}/schema` },
      { type: "application/json", href: `${base}/datapackage.json` },
      { type: "application/ld+json", href: `${base}/croissant.jsonld` },
    ]);
    for (const link of links) {
      const response = await fetch(link.href);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")?.startsWith(link.type)).toBe(true);
    }
  });
});
