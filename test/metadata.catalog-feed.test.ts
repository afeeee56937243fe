// `GET /catalog.jsonld`, read as a DCAT harvester reads it: every page expanded offline, the Hydra
// `hydra:next` chain followed to the end, every public dataset met exactly once, nothing private
// and no draft version described, and every download URL in it downloading what it names.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../src/index.ts";
import { beforeAll, describe, expect, it } from "vitest";
import { collectionPart, createDataset, csvPart, expectProblem, gunzipText, send, write } from "./helpers/http.ts";
import { DCAT, DCT, HYDRA, objects, one, readJsonLd, type Graph } from "./helpers/json-ld.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { countingDb } from "./helpers/storage.ts";

const ORIGIN = "https://pubset.test";
let key: TestKey;
let privateId: string;
let drafted: { id: string; draft: string; published: string };
const publicCsv = new Map<string, string>();

async function put(id: string, collection: Record<string, unknown>, csv: string, fileName: string) {
  const response = await write("PUT", `/v1/dataset/${id}`, key, [collectionPart(collection), csvPart(csv, fileName)]);
  if (response.status !== 200) throw new Error(`PUT failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { version: string }).version;
}

beforeAll(async () => {
  key = await createKey("feed-team", "feed-owner");
  for (let i = 0; i < 5; i++) {
    const csv = `n,label\n${i},feed row ${i}\n`;
    const d = await createDataset(key, csv, { name: `Feed public ${i}`, visibility: "public", properties: { key_words: ["feed"] } }, `feed${i}.csv`);
    publicCsv.set(d.id, csv);
  }
  privateId = (await createDataset(key, "secret\nFEEDPRIVATEROW\n", { name: "FEEDPRIVATENAME" })).id;
  const early = await createDataset(key, "word\nFEEDDRAFTROW\n", { name: "FEEDDRAFTNAME" }, "early.csv");
  const published = await put(early.id, { name: "Feed made public", visibility: "public" }, "word\npublic\n", "later.csv");
  drafted = { id: early.id, draft: early.version, published };
  publicCsv.set(early.id, "word\npublic\n");
});

async function feedPage(url: string, headers: Record<string, string> = {}) {
  const response = await send("GET", url, { headers });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return { response, text, graph: await readJsonLd(JSON.parse(text)) };
}

function datasetNodes(graph: Graph) {
  return objects(graph.node(`${ORIGIN}/catalog.jsonld`), `${DCAT}dataset`).map((id) => graph.node(String(id)));
}

/** Follows hydra:next from the first page; every page's dataset identifiers, in order. */
async function walk(first: string): Promise<{ ids: string[]; pages: number; graphs: Graph[] }> {
  const ids: string[] = [];
  const graphs: Graph[] = [];
  let url: string | null = first;
  let pages = 0;
  while (url !== null) {
    const { graph } = await feedPage(url);
    graphs.push(graph);
    pages++;
    ids.push(...datasetNodes(graph).map((d) => String(one(d, `${DCT}identifier`))));
    const [view] = graph.ofType(`${HYDRA}PartialCollectionView`);
    expect(view?.["@id"]).toBe(url);
    const next = objects(view!, `${HYDRA}next`);
    url = next.length === 0 ? null : String(next[0]);
    if (pages > 100) throw new Error("hydra:next never ends");
  }
  return { ids, pages, graphs };
}

async function publicIdsInD1(): Promise<string[]> {
  const { results } = await env.DB.prepare("SELECT id FROM datasets WHERE visibility = 'public' ORDER BY created DESC, id DESC").all<{ id: string }>();
  return results.map((r) => r.id);
}

describe("GET /catalog.jsonld", () => {
  it("walks every public dataset exactly once, newest first, following hydra:next", async () => {
    const { ids, pages } = await walk(`${ORIGIN}/catalog.jsonld?limit=2`);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(await publicIdsInD1());
    expect(pages).toBe(Math.max(1, Math.ceil(ids.length / 2)));
    for (const id of publicCsv.keys()) expect(ids).toContain(id);
  });

  it("never describes a private dataset or a draft version, signed or not", async () => {
    for (const headers of [{}, { Accept: "application/ld+json" }] as Array<Record<string, string>>) {
      const { text, graph } = await feedPage(`${ORIGIN}/catalog.jsonld?limit=100`, headers);
      for (const secret of ["FEEDPRIVATENAME", "FEEDPRIVATEROW", "FEEDDRAFTNAME", "early.csv", privateId, drafted.draft]) expect(text).not.toContain(secret);
      const made = graph.node(`${ORIGIN}/v1/dataset/${drafted.id}`);
      expect(objects(made, `${DCAT}hasVersion`)).toEqual([`${ORIGIN}/v1/dataset/${drafted.id}/${drafted.published}`]);
    }
    // A signature changes nothing: the feed is the anonymous catalog.
    const signed = await send("GET", "/catalog.jsonld?limit=100", { key });
    const text = await signed.text();
    expect(signed.status).toBe(200);
    expect(text).not.toContain(privateId);
    expect(text).not.toContain(drafted.draft);
  });

  it("names downloads that download what it says, at the sizes it says", async () => {
    const { graph } = await feedPage(`${ORIGIN}/catalog.jsonld?limit=100`);
    for (const dataset of datasetNodes(graph)) {
      const id = String(one(dataset, `${DCT}identifier`));
      const csv = publicCsv.get(id);
      if (csv === undefined) continue;
      const distributions = objects(dataset, `${DCAT}distribution`).map((d) => graph.node(String(d)));
      expect(distributions).toHaveLength(3);
      for (const distribution of distributions) {
        const url = String(one(distribution, `${DCAT}downloadURL`));
        expect(url.startsWith(`${ORIGIN}/v1/dataset/${id}/${String(one(dataset, `${DCAT}version`))}/`)).toBe(true);
        if (url.endsWith(".parquet")) {
          // Built after the commit, so described without a size: here or still pending.
          expect(objects(distribution, `${DCAT}byteSize`)).toEqual([]);
          expect([200, 503]).toContain((await send("GET", url)).status);
          continue;
        }
        const response = await send("GET", url);
        expect(response.status).toBe(200);
        const bytes = new Uint8Array(await response.clone().arrayBuffer());
        expect(String(bytes.length)).toBe(one(distribution, `${DCAT}byteSize`));
        const gzip = objects(distribution, `${DCAT}compressFormat`).length > 0;
        expect(gzip ? await gunzipText(response) : new TextDecoder().decode(bytes)).toBe(csv);
      }
      for (const version of objects(dataset, `${DCAT}hasVersion`)) expect((await send("GET", String(version))).status).toBe(200);
    }
  });

  it("is public JSON-LD cached a minute under the catalog tag, with an ETag that answers 304", async () => {
    const { response } = await feedPage(`${ORIGIN}/catalog.jsonld`);
    expect(response.headers.get("content-type")).toBe("application/ld+json");
    expect(response.headers.get("cache-control")).toBe("public, max-age=60, stale-while-revalidate=300");
    expect(response.headers.get("cache-tag")).toBe("catalog");
    const etag = response.headers.get("etag")!;
    const again = await send("GET", "/catalog.jsonld", { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
  });

  it("costs the same D1 round trips for a page of 1 dataset as for a page of 5", async () => {
    const callsFor = async (limit: number) => {
      const { db, calls } = countingDb();
      const ctx = createExecutionContext();
      const response = await worker.fetch(new Request(`${ORIGIN}/catalog.jsonld?limit=${limit}`), { ...env, DB: db }, ctx);
      expect(response.status).toBe(200);
      const graph = await readJsonLd(await response.json());
      await waitOnExecutionContext(ctx);
      expect(datasetNodes(graph)).toHaveLength(limit);
      return calls.length;
    };
    expect(await callsFor(5)).toBe(await callsFor(1));
  });

  it("refuses unknown parameters, a bad limit and a foreign cursor as problem+json", async () => {
    await expectProblem(await send("GET", "/catalog.jsonld?page=2"), 400, "invalid_query");
    await expectProblem(await send("GET", "/catalog.jsonld?limit=0"), 400, "invalid_query");
    await expectProblem(await send("GET", "/catalog.jsonld?limit=101"), 400, "invalid_query");
    await expectProblem(await send("GET", "/catalog.jsonld?cursor=not-ours"), 400, "invalid_query");
  });
});
