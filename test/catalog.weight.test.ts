// Page weight (issue: pages under 50 KB without the data): the shell of each page — markup,
// inline CSS, labels — measured with tiny data, and full pages measured at their largest
// ordinary size (a home page of 20 datasets with long descriptions, a 100-row preview).
import { beforeAll, describe, expect, it } from "vitest";
import { page, writeWithTwin } from "./catalog.helpers.ts";
import { createDataset } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";

const BUDGET = 50 * 1024;

let key: TestKey;

beforeAll(async () => {
  key = await createKey("weight-team", "weight-user");
});

async function gzipped(html: string): Promise<number> {
  const stream = new Blob([html]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

describe("catalog page weight", () => {
  it("the shells weigh well under 50 KB", async () => {
    // Its statistics built, so the shell holds one column summary whatever the queue has done.
    const tiny = await writeWithTwin(key, "POST", "/v1/dataset", { name: "W", visibility: "public" }, "a\n1\n");
    const shells = {
      home: await page("/?team=weight-team"),
      dataset: await page(`/datasets/${tiny.id}`),
      notFound: await page("/datasets/00000000-0000-4000-8000-000000000000"),
    };
    for (const [name, shell] of Object.entries(shells)) {
      console.log(`catalog weight: ${name} shell ${shell.bytes} bytes, ${await gzipped(shell.html)} gzipped`);
      // A third of the budget: the dataset shell carries its JSON-LD, a column summary and the
      // preview's filter form, and still leaves two thirds of the 50 KB for the data.
      expect(shell.bytes).toBeLessThan(BUDGET / 3);
    }
  });

  it("a full home page (20 datasets, long descriptions, 12 key words each) stays under 50 KB", async () => {
    const words = Array.from({ length: 12 }, (_, i) => `keyword${i}`);
    for (let i = 0; i < 21; i++) {
      const description = `Dataset ${i}: ` + "a long description of what this dataset holds, ".repeat(20);
      await createDataset(key, "a\n1\n", { name: `Weighty dataset number ${i} with a fairly long name`, visibility: "public", properties: { description, key_words: words } });
    }
    const home = await page("/?team=weight-team");
    console.log(`catalog weight: full home page ${home.bytes} bytes, ${await gzipped(home.html)} gzipped`);
    expect(home.bytes).toBeLessThan(BUDGET);
  });

  it("a dataset page with a 100-row, 8-column preview and 8 column summaries stays under 50 KB", async () => {
    const header = Array.from({ length: 8 }, (_, i) => `column_${i}`).join(",");
    // Half text (10 top values each, so a table of them), half numbers (10-bin histograms).
    const cell = (r: number, c: number) => (c % 2 === 0 ? `r${r % 50}c${c}-value` : String((r * 7919 + c) % 1000));
    const rows = Array.from({ length: 500 }, (_, r) => Array.from({ length: 8 }, (_, c) => cell(r, c)).join(",")).join("\n");
    const d = await writeWithTwin(key, "POST", "/v1/dataset", { name: "Weighty preview", visibility: "public", properties: { description: "x" } }, `${header}\n${rows}\n`);
    const shown = await page(`/datasets/${d.id}`);
    expect(shown.html.match(/<svg class="hist"/g)?.length).toBe(4);
    console.log(`catalog weight: dataset page with 100x8 preview and 8 column summaries ${shown.bytes} bytes, ${await gzipped(shown.html)} gzipped`);
    expect(shown.bytes).toBeLessThan(BUDGET);
  });
});
