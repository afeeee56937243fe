// Issue 17 in a real browser against `npm start`: the page of a dataset made public shows
// nothing of the versions written while it was private, and its "Download CSV" saves a `.csv`
// name even when the upload was called page.html (which Chromium would otherwise save, and
// later open, as a web page).
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { e2eServer, type E2eServer } from "../node/helpers/shared-server.ts";
import { describeInChromium, launchChromium, type Chromium } from "./helpers/chromium.ts";
import { pagePerTest } from "./helpers/page-per-test.ts";
import { publish, update, type Published } from "./helpers/publish.ts";

const PUBLIC_CSV = "word,count\npublic row,1\n";

describeInChromium("drafts and downloads in Chromium", () => {
  let server: E2eServer & { stop(): Promise<void> };
  let browser: Chromium;
  let draft: Published;
  let published: Published;

  beforeAll(async () => {
    [server, browser] = await Promise.all([e2eServer(), launchChromium()]);
    draft = await publish(server, { name: "Embargoed early name", properties: { description: "EARLYSECRETDESCRIPTION" } }, "word,count\nEARLYSECRETROW,1\n", "early.csv");
    published = await update(server, draft.id, { name: "Released figures", visibility: "public", properties: { description: "Released" } }, { csv: PUBLIC_CSV, fileName: "page.html" });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const page = pagePerTest(() => browser.context);

  it("the dataset page of a dataset made public shows no private-era version", async () => {
    const p = page();
    await p.goto(`${server.url}/datasets/${draft.id}`);
    expect(await p.locator("h1").textContent()).toBe("Released figures");
    const text = (await p.locator("body").textContent()) ?? "";
    const html = await p.content();
    for (const secret of ["EARLYSECRETROW", "EARLYSECRETDESCRIPTION", "Embargoed early name", "early.csv", draft.version, draft.version.slice(0, 8)]) {
      expect(text).not.toContain(secret);
      expect(html).not.toContain(secret);
    }
    const history = await p.locator("table:has(#versions-caption) tbody tr").count();
    expect(history).toBe(1);
    expect(await p.locator("table:has(#versions-caption) code").getAttribute("title")).toBe(published.version);
    // The draft's own page of the API is a 404 to this (anonymous) browser.
    const response = await p.goto(`${server.url}/v1/dataset/${draft.id}/${draft.version}/early.csv`);
    expect(response?.status()).toBe(404);
  });

  it("Download CSV saves page.html.csv, and the gzip page.html.csv.gz", async () => {
    const p = page();
    await p.goto(`${server.url}/datasets/${draft.id}`);
    const [csv] = await Promise.all([p.waitForEvent("download"), p.getByRole("link", { name: /^Download CSV/ }).click()]);
    expect(csv.suggestedFilename()).toBe("page.html.csv");
    expect(await readFile(await csv.path(), "utf8")).toBe(PUBLIC_CSV);
    const [gzip] = await Promise.all([p.waitForEvent("download"), p.getByRole("link", { name: /^Download gzip/ }).click()]);
    expect(gzip.suggestedFilename()).toBe("page.html.csv.gz");
    const [versionCsv] = await Promise.all([p.waitForEvent("download"), p.getByRole("link", { name: /^CSV of version/ }).click()]);
    expect(versionCsv.suggestedFilename()).toBe("page.html.csv");
  });
});
