// `GET /`: the public catalog's list — public datasets only, search, team and owner filters,
// "next page" links, and friendly 400 pages for queries that cannot run.
import { beforeAll, describe, expect, it } from "vitest";
import { datasetIds, expectCatalogHeaders, linkHref, page, text } from "./catalog.helpers.ts";
import { appendRows, createDataset, send } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";

let ada: TestKey;
let bo: TestKey;
let hidden: TestKey;
const made: Record<string, string> = {};

beforeAll(async () => {
  ada = await createKey("home-team", "home-ada");
  bo = await createKey("home-team", "home-bo");
  hidden = await createKey("home-hidden-team", "home-hidden");
  const props = (description: string, key_words: string[]) => ({ description, key_words, contact_name: "Grace" });
  made.rivers = (await createDataset(ada, "river,km\nRhine,1233\n", { name: "Home rivers", visibility: "public", properties: props("Rivers of Europe by length", ["hydrology", "quokkaword"]) })).id;
  made.lakes = (await createDataset(bo, "lake,km2\nGeneva,580\n", { name: "Home lakes", visibility: "public", properties: props("Alpine lakes", ["hydrology"]) })).id;
  made.secret = (await createDataset(ada, "a\n1\n", { name: "Home secret quokkaword", visibility: "private", properties: props("quokkaword", ["quokkaword"]) })).id;
  made.hiddenTeam = (await createDataset(hidden, "a\n1\n", { name: "Only private", visibility: "private" })).id;
});

describe("GET / (catalog home)", () => {
  it("lists public datasets newest first with name, description, key words, team and last update", async () => {
    const home = await page("/?team=home-team");
    expect(home.status).toBe(200);
    expectCatalogHeaders(home.headers);
    expect(datasetIds(home.html)).toEqual([made.lakes, made.rivers]);
    const body = text(home.html);
    expect(body).toContain("Home rivers");
    expect(body).toContain("Rivers of Europe by length");
    expect(linkHref(home.html, "quokkaword")).toBe("/?q=quokkaword");
    expect(linkHref(home.html, "home-team")).toBe("/?team=home-team");
    expect(home.html).toMatch(/updated <time datetime="\d{4}-\d\d-\d\dT[\d:.]+Z">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>/);
  });

  it("shows each entry's rows, columns and CSV size, of the latest version, in lists and search results", async () => {
    const key = await createKey("home-size-team", "home-size");
    const csv = "city,country,population\nLisbon,Portugal,545923\nPorto,Portugal,231800\n";
    const d = await createDataset(key, csv, { name: "Home sized wombatword", visibility: "public" });
    expect(text((await page("/?team=home-size-team")).html)).toContain(`2 rows · 3 columns · ${csv.length} bytes CSV`);
    const appended = await appendRows(key, d.id, "Kyoto,Japan,1463723\n");
    expect(appended.status).toBe(201);
    const bytes = csv.length + "Kyoto,Japan,1463723\n".length;
    expect(text((await page("/?team=home-size-team")).html)).toContain(`3 rows · 3 columns · ${bytes} bytes CSV`);
    expect(text((await page("/?q=wombatword")).html)).toContain(`3 rows · 3 columns · ${bytes} bytes CSV`);
  });

  it("never shows a private dataset, nor a team that has only private ones, even to a signed request", async () => {
    for (const options of [{}, { key: ada }, { key: hidden }]) {
      const home = await page("/", options);
      expect(home.status).toBe(200);
      expect(home.html).not.toContain(made.secret);
      expect(home.html).not.toContain(made.hiddenTeam);
      expect(home.html).not.toContain("Home secret");
      expect(home.html).not.toContain("home-hidden-team");
    }
  });

  it("searches with FTS5 (a key word, a prefix) and still shows only public datasets", async () => {
    const hits = await page("/?q=quokkaword");
    expect(datasetIds(hits.html)).toEqual([made.rivers]);
    expect((await page("/?q=hydro")).html).toContain(made.lakes);
    expect(datasetIds((await page("/?q=alpine+lakes")).html)).toEqual([made.lakes]);
    const none = await page("/?q=nothingmatchesthis");
    expect(none.status).toBe(200);
    expect(text(none.html)).toContain("No public dataset matches.");
  });

  it("keeps the typed words and the chosen team in the form", async () => {
    const home = await page("/?q=hydrology&team=home-team");
    expect(home.html).toContain('<input id="q" name="q" type="search" value="hydrology"');
    expect(home.html).toContain('<option value="home-team" selected="">home-team</option>');
    expect(datasetIds(home.html)).toEqual(expect.arrayContaining([made.lakes, made.rivers]));
  });

  it("filters by owner (the owner link of a dataset page) and keeps the filter in the form", async () => {
    const home = await page("/?owner=home-bo");
    expect(datasetIds(home.html)).toEqual([made.lakes]);
    expect(home.html).toContain('<input type="hidden" name="owner" value="home-bo"/>');
  });

  it("empty form fields mean no filter", async () => {
    const home = await page("/?q=&team=&owner=");
    expect(home.status).toBe(200);
    expect(home.html).toContain(made.rivers);
  });

  it("pages with 'Next page' links until the last page, for lists and for searches", async () => {
    const key = await createKey("home-pages", "home-pager");
    const ids: string[] = [];
    for (let i = 0; i < 23; i++) {
      ids.push((await createDataset(key, "a\n1\n", { name: `Pager ${i}`, visibility: "public", properties: { key_words: ["pagerword"] } })).id);
    }
    for (const start of ["/?team=home-pages", "/?q=pagerword"]) {
      const seen: string[] = [];
      let path: string | null = start;
      let pages = 0;
      while (path !== null) {
        const current = await page(path);
        expect(current.status).toBe(200);
        seen.push(...datasetIds(current.html));
        path = linkHref(current.html, "Next page");
        if (pages > 0) expect(linkHref(current.html, "First page")).toBe(start);
        pages++;
      }
      expect(pages).toBe(2);
      expect(seen.sort()).toEqual([...ids].sort());
    }
  });

  it.each([
    ["/?q=%2A%2A%2A", "at least one letter or digit"],
    [`/?q=${"a".repeat(201)}`, "at most 200 characters"],
    ["/?team=not%20a%20team", "not a team name"],
    ["/?owner=%3Cscript%3E", "not a user name"],
    ["/?cursor=garbage", "no longer valid"],
  ])("%s → 400 page that keeps the form and says why", async (path, why) => {
    const home = await page(path);
    expect(home.status).toBe(400);
    expectCatalogHeaders(home.headers, home.status);
    expect(home.html).toContain('<form class="search"');
    expect(text(home.html)).toContain(why);
    expect(home.html).not.toContain("<script");
  });

  it("answers HEAD like GET, without a body", async () => {
    const response = await send("HEAD", "/");
    expect(response.status).toBe(200);
    expectCatalogHeaders(response.headers);
    expect(await response.text()).toBe("");
  });
});
