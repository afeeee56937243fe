// What the catalog promises people using assistive technology, a keyboard or a phone, checked
// on the rendered HTML: language, one h1 and no skipped heading levels, labelled form fields,
// a skip link to the main content, a viewport, scrollable table regions, charts with names and
// text equivalents, and colour pairs of the stylesheet that meet WCAG 2.2 AA contrast in both
// colour schemes.
import { beforeAll, describe, expect, it } from "vitest";
import { CATALOG_CSS } from "../src/catalog/styles.ts";
import { page, writeWithTwin } from "./catalog.helpers.ts";
import { createDataset } from "./helpers/http.ts";
import { createKey } from "./helpers/keys.ts";

const pages: Record<string, string> = {};

beforeAll(async () => {
  const key = await createKey("a11y-team", "a11y-user");
  // Its statistics built, so the page shows its column summaries and charts.
  const d = await writeWithTwin(key, "POST", "/v1/dataset", { name: "A11y", visibility: "public", properties: { description: "d", key_words: ["k"], contact_name: "c" } }, "a,b,c\n1,x,true\n2,x,false\n3,y,true\n");
  pages.home = (await page("/")).html;
  pages.search = (await page("/?q=a11y&team=a11y-team")).html;
  pages.problem = (await page("/?q=%21")).html;
  pages.dataset = (await page(`/datasets/${d.id}`)).html;
  pages.notFound = (await page("/datasets/00000000-0000-4000-8000-000000000000")).html;
});

describe.each(["home", "search", "problem", "dataset", "notFound"])("catalog page %s", (name) => {
  const html = () => pages[name] ?? "";

  it("declares its language and a phone-friendly viewport", () => {
    expect(html()).toMatch(/^<!doctype html><html lang="en">/);
    expect(html()).toContain('<meta name="viewport" content="width=device-width, initial-scale=1"/>');
    expect(html()).toMatch(/<title>[^<]+<\/title>/);
  });

  it("has exactly one h1 and never skips a heading level", () => {
    const levels = [...html().matchAll(/<h([1-6])[\s>]/g)].map((m) => Number(m[1]));
    expect(levels.filter((l) => l === 1).length).toBe(1);
    expect(levels[0]).toBe(1);
    for (let i = 1; i < levels.length; i++) expect(levels[i]!).toBeLessThanOrEqual(levels[i - 1]! + 1);
  });

  it("opens with a skip link to the main content", () => {
    expect(html()).toMatch(/<body><a class="skip" href="#main">Skip to content<\/a>/);
    expect(html()).toContain('<main id="main"');
  });

  it("labels every form field", () => {
    const fields = [...html().matchAll(/<(input|select|textarea)\b([^>]*)>/g)].filter((m) => !/type="hidden"/.test(m[2] ?? ""));
    for (const field of fields) {
      const id = /\sid="([^"]+)"/.exec(field[2] ?? "")?.[1];
      expect(id, field[0]).toBeDefined();
      expect(html()).toContain(`<label for="${id}">`);
    }
  });

  it("makes every scrolling table region focusable and named", () => {
    for (const region of html().matchAll(/<div class="scroll[^"]*"([^>]*)>/g)) {
      expect(region[1]).toMatch(/role="region"/);
      expect(region[1]).toMatch(/aria-labelledby="[^"]+"/);
      expect(region[1]).toMatch(/tabindex="0"/);
    }
  });

  it("gives every chart a name and a text equivalent a keyboard reaches", () => {
    // A histogram is an image named by its aria-label, inside the summary of a disclosure (one
    // tab stop) that opens a table of its bins; a top-value bar is decoration beside its count.
    const charts = [...html().matchAll(/<svg\b([^>]*)>/g)].map((m) => m[1] ?? "");
    for (const svg of charts) {
      if (/class="hist"/.test(svg)) expect(svg).toMatch(/role="img" aria-label="Histogram of [^"]+"/);
      else expect(svg).toMatch(/class="bar"[^>]*aria-hidden="true"/);
    }
    for (const chart of html().matchAll(/<details class="chart">([\s\S]*?)<\/details>/g)) {
      expect(chart[1]).toMatch(/^<summary><svg class="hist"[\s\S]*<\/summary><table><caption>Values per bin[^<]*<\/caption><thead><tr><th scope="col">Bin<\/th>/);
    }
    if (name === "dataset") {
      expect(charts.filter((svg) => /class="hist"/.test(svg)).length).toBe(1);
      expect(charts.filter((svg) => /class="bar"/.test(svg)).length).toBe(4);
    }
  });
});

function luminance(hex: string): number {
  const channels = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const [r, g, b] = channels.map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** `--name:#rgb` / `--name:#rrggbb` custom properties of one rule, as #rrggbb. */
function palette(block: string): Record<string, string> {
  const long = (hex: string) => (hex.length === 4 ? `#${[...hex.slice(1)].map((c) => c + c).join("")}` : hex);
  return Object.fromEntries([...block.matchAll(/--([a-z-]+):(#[0-9a-f]{6}|#[0-9a-f]{3})\b/g)].map((m) => [m[1] ?? "", long(m[2] ?? "")]));
}

describe("catalog colours", () => {
  const light = palette(/:root\{([^}]+)\}/.exec(CATALOG_CSS)?.[1] ?? "");
  const dark = { ...light, ...palette(/prefers-color-scheme:dark\)\{:root\{([^}]+)\}/.exec(CATALOG_CSS)?.[1] ?? "") };

  it.each([
    ["light", light],
    ["dark", dark],
  ])("meet WCAG AA contrast in the %s scheme", (_, colours) => {
    const text: Array<[string, string]> = [["fg", "bg"], ["fg", "panel"], ["muted", "bg"], ["muted", "panel"], ["link", "bg"], ["link", "panel"], ["on-accent", "accent"]];
    for (const [fg, bg] of text) expect(contrast(colours[fg]!, colours[bg]!), `${fg} on ${bg}`).toBeGreaterThanOrEqual(4.5);
    for (const bg of ["bg", "panel"]) expect(contrast(colours.focus!, colours[bg]!), `focus ring on ${bg}`).toBeGreaterThanOrEqual(3);
    // Chart bars (accent) and the histogram's baseline (muted) are graphics: 3:1 (WCAG 1.4.11).
    for (const [fg, bg] of [["accent", "bg"], ["accent", "panel"], ["muted", "bg"]] as const) expect(contrast(colours[fg]!, colours[bg]!), `${fg} graphics on ${bg}`).toBeGreaterThanOrEqual(3);
  });
});
