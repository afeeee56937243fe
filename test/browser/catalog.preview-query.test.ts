// The dataset page's filter, sort and pages in a real browser against `npm start`, with script
// off: a reader types a `where` expression, clicks a heading to sort, pages on and jumps to a
// row, and is shown where a wrong filter goes wrong; on a phone nothing scrolls sideways but the
// table's own box.
import { afterAll, beforeAll, expect, it } from "vitest";
import { e2eServer, type E2eServer } from "../node/helpers/shared-server.ts";
import { describeInChromium, launchChromium, type Chromium } from "./helpers/chromium.ts";
import { publish, type Published } from "./helpers/publish.ts";
import { pagePerTest } from "./helpers/page-per-test.ts";

const BOROUGHS = ["Manhattan", "Brooklyn", "Queens"];
const CSV = "id,borough,trees\n" + Array.from({ length: 180 }, (_, i) => `${i + 1},${BOROUGHS[i % 3]},${(i * 37) % 500}`).join("\n") + "\n";

describeInChromium("dataset page preview queries in Chromium", () => {
  let server: E2eServer & { stop(): Promise<void> };
  let browser: Chromium;
  let trees: Published;

  beforeAll(async () => {
    [server, browser] = await Promise.all([e2eServer(), launchChromium()]);
    trees = await publish(server, { name: "Street trees by block", visibility: "public" }, CSV, "trees.csv");
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const page = pagePerTest(() => browser.context);
  const cells = (p: ReturnType<typeof page>) =>
    p.locator("table:has(#preview-caption) tbody tr").evaluateAll((rows) => rows.map((row) => Array.from(row.querySelectorAll("td"), (td) => td.textContent ?? "")));

  it("filters by a typed expression, sorts by a heading, and offers the answer as CSV", async () => {
    const p = page();
    await p.goto(`${server.url}/datasets/${trees.id}`);
    await p.getByLabel("Filter rows").fill("borough = 'Queens' AND trees >= 400");
    await p.getByRole("button", { name: "Filter" }).click();
    await p.waitForURL(/where=/);
    const expected = CSV.trim().split("\n").slice(1).map((line) => line.split(",")).filter(([, borough, n]) => borough === "Queens" && Number(n) >= 400);
    expect(await cells(p)).toEqual(expected);
    expect(await p.locator("#preview-caption").textContent()).toContain(`of ${expected.length} matching rows (of 180)`);

    await p.getByRole("link", { name: "trees", exact: true }).click();
    await p.waitForURL(/order=trees/);
    expect(await p.locator('th[aria-sort="ascending"]').textContent()).toContain("trees");
    const ascending = (await cells(p)).map((row) => Number(row[2]));
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    expect(new URL(p.url()).searchParams.get("where")).toBe("borough = 'Queens' AND trees >= 400");
    await p.getByRole("link", { name: "trees", exact: false }).first().click();
    await p.waitForURL(/order=-trees/);
    expect(await p.locator('th[aria-sort="descending"]').count()).toBe(1);

    const csvLink = p.getByRole("link", { name: "Download these rows as CSV" });
    const response = await p.request.get(new URL((await csvLink.getAttribute("href"))!, server.url).href);
    const lines = (await response.text()).trim().split(/\r?\n/);
    expect(lines[0]).toBe("id,borough,trees");
    expect(lines.slice(1).map((line) => Number(line.split(",")[2]))).toEqual([...ascending].reverse());
  });

  it("pages with next and previous, and jumps to a typed row number", async () => {
    const p = page();
    await p.goto(`${server.url}/datasets/${trees.id}`);
    await p.getByRole("link", { name: "Next 100" }).click();
    await p.waitForURL(/row=101/);
    expect((await cells(p))[0]?.[0]).toBe("101");
    await p.getByLabel("Go to row").fill("175");
    await p.getByRole("button", { name: "Go" }).click();
    await p.waitForURL(/row=175/);
    expect((await cells(p)).map((row) => row[0])).toEqual(["175", "176", "177", "178", "179", "180"]);
    await p.getByRole("link", { name: "Previous 100" }).click();
    await p.waitForURL(/row=75/);
    expect((await cells(p))[0]?.[0]).toBe("75");
  });

  it("shows where a wrong filter goes wrong, keeps what was typed, and fits a phone", async () => {
    const p = page();
    await p.setViewportSize({ width: 390, height: 844 });
    await p.goto(`${server.url}/datasets/${trees.id}`);
    await p.getByLabel("Filter rows").fill("trees >> 3");
    await p.getByRole("button", { name: "Filter" }).click();
    await p.waitForURL(/where=/);
    const alert = p.getByRole("alert");
    expect(await alert.textContent()).toContain("at character 8");
    expect(await p.getByLabel("Filter rows").inputValue()).toBe("trees >> 3");
    expect(await p.getByLabel("Filter rows").getAttribute("aria-invalid")).toBe("true");
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, "the page does not scroll sideways").toBeLessThanOrEqual(0);
    await p.goto(`${server.url}/datasets/${trees.id}?order=borough`);
    expect(await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  });
});
