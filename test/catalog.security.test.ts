// The catalog's safety properties: every value from a dataset is escaped wherever it lands
// (text, attributes, URLs), pages load nothing and run nothing (strict CSP, no scripts, no
// outside resources), and signatures are ignored — the catalog is the anonymous view only.
import { beforeAll, describe, expect, it } from "vitest";
import { CATALOG_CSP } from "../src/catalog/pages/layout.tsx";
import { expectCatalogHeaders, page, writeWithTwin } from "./catalog.helpers.ts";
import { createDataset, send } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";

const EVIL = `"><script>alert(1)</script><img src=x onerror=alert(2)>'&`;

let key: TestKey;
let id: string;

beforeAll(async () => {
  key = await createKey("sec-team", "sec-user");
  // Its statistics built too, so the column summaries (names, top values) show the values.
  const d = await writeWithTwin(key, "POST", "/v1/dataset", {
    name: `Evil ${EVIL}`,
    visibility: "public",
    properties: { description: `evilword ${EVIL}`, key_words: [EVIL, `x" onmouseover="alert(3)`], contact_name: EVIL },
  }, `col${EVIL.replace(/[",\n]/g, "")},b\n"${EVIL.replace(/"/g, '""')}",2\n`);
  id = d.id;
});

/** Element and attribute names of every real tag (escaped text holds `&lt;`, never `<`). */
function markup(html: string): { elements: string[]; attributes: string[] } {
  const elements: string[] = [];
  const attributes: string[] = [];
  for (const tag of html.matchAll(/<([a-z][a-z0-9]*)((?:\s+[a-z-]+(?:="[^"]*")?)*)\s*\/?>/g)) {
    elements.push(tag[1] ?? "");
    for (const attribute of (tag[2] ?? "").matchAll(/\s+([a-z-]+)(?:="[^"]*")?/g)) attributes.push(attribute[1] ?? "");
  }
  return { elements, attributes };
}

/** A dataset page's one script element: its schema.org JSON-LD, data the browser never runs (docs/catalog.md#catalog-metadata). */
const JSON_LD_OPEN = '<script type="application/ld+json">';

function expectNoInjection(html: string): void {
  const { elements, attributes } = markup(html);
  expect(elements.filter((name) => name === "script").length).toBe(html.split(JSON_LD_OPEN).length - 1);
  expect(html.split(JSON_LD_OPEN).length - 1).toBeLessThanOrEqual(1);
  expect(elements).not.toContain("img");
  expect(attributes.filter((name) => name.startsWith("on"))).toEqual([]);
  expect(html.split(JSON_LD_OPEN).join("")).not.toMatch(/<(script|img)/i);
}

describe("catalog security", () => {
  it("escapes dataset values on the home page, in text, attributes and links", async () => {
    const home = await page("/?q=evilword");
    expect(home.html).toContain(id);
    expectNoInjection(home.html);
    expect(home.html).toContain("Evil &quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
    const keyWordHref = `/?${new URLSearchParams({ q: EVIL })}`;
    expect(keyWordHref).not.toMatch(/["<>]/);
    expect(home.html).toContain(`href="${keyWordHref.replace(/&/g, "&amp;")}"`);
  });

  it("escapes dataset values and cells on the dataset page", async () => {
    const shown = await page(`/datasets/${id}`);
    expect(shown.status).toBe(200);
    expectNoInjection(shown.html);
    expect(shown.html).toContain('<td>&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it("escapes what the visitor typed when it is shown back", async () => {
    const home = await page(`/?q=${encodeURIComponent(EVIL)}`);
    expectNoInjection(home.html);
    expect(home.html).toContain('value="&quot;&gt;&lt;script&gt;');
  });

  it("sends a CSP that allows only inline styles, and the pages need nothing more", async () => {
    expect(CATALOG_CSP).toBe("default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'");
    for (const path of ["/", `/datasets/${id}`, "/datasets/00000000-0000-4000-8000-000000000000", "/?cursor=x"]) {
      const shown = await page(path);
      expectCatalogHeaders(shown.headers, shown.status);
      expect(shown.headers.get("x-content-type-options")).toBe("nosniff");
      expect(shown.html.split(JSON_LD_OPEN).join("")).not.toMatch(/<script|<iframe|<object|<embed|\sstyle="|javascript:/i);
      expect(shown.html).not.toMatch(/(src|href)="(https?:)?\/\//i);
      expect(shown.html).not.toMatch(/<link rel="stylesheet"/);
    }
  });

  it("ignores signatures: a signed request sees the anonymous catalog, and a bad signature is no error", async () => {
    const secret = await createDataset(key, "a\n1\n", { name: "Sec private", visibility: "private", properties: { description: "evilword" } });
    const signed = await page("/?q=evilword", { key });
    expect(signed.status).toBe(200);
    expect(signed.headers.get("cache-control")).toBe("public, max-age=60");
    expect(signed.html).not.toContain(secret.id);
    expect((await page(`/datasets/${secret.id}`, { key })).status).toBe(404);
    const forged = await send("GET", "/", { headers: { Signature: "sig1=:AAAA:", "Signature-Input": 'sig1=("@method");created=1;keyid="nope"' } });
    expect(forged.status).toBe(200);
  });
});
