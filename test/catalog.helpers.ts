// Small readers for the catalog's HTML in workerd tests (no DOM there): fetch a page,
// check its fixed headers, and pull out tags, text and links with regular expressions
// that fit the markup hono/jsx renders.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import worker from "../src/index.ts";
import { CATALOG_CSP } from "../src/catalog/pages/layout.tsx";
import { collectionPart, csvPart, send, type SendOptions } from "./helpers/http.ts";
import type { TestKey } from "./helpers/keys.ts";
import { recordingAfterCommit, signedFetch } from "./helpers/storage.ts";

export interface Page {
  status: number;
  headers: Headers;
  html: string;
  bytes: number;
}

export async function page(path: string, options: SendOptions = {}): Promise<Page> {
  const response = await send("GET", path, options);
  const html = await response.text();
  return { status: response.status, headers: response.headers, html, bytes: new TextEncoder().encode(html).length };
}

/** Error pages are `no-store` (docs/edge-and-caching.md: an edge must not keep a 404 after a dataset turns public). */
export function expectCatalogHeaders(headers: Headers, status = 200): void {
  expect(headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(headers.get("cache-control")).toBe(status >= 400 ? "no-store" : "public, max-age=60");
  expect(headers.get("content-security-policy")).toBe(CATALOG_CSP);
}

/** Text content with tags removed and the entities hono/jsx emits decoded. */
export function text(html: string): string {
  return html
    .replace(/<style[\s\S]*?<\/style>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
}

/** The hrefs of the dataset links in the home list, in order. */
export function datasetIds(html: string): string[] {
  return [...html.matchAll(/<h2><a href="\/datasets\/([0-9a-f-]{36})" dir="auto">/g)].map((m) => m[1] ?? "");
}

/** The href of the link whose text is exactly `label`, entity-encoded as in the page. */
export function linkHref(html: string, label: string): string | null {
  for (const m of html.matchAll(/<a ([^>]*)>([^<]*)<\/a>/g)) {
    if (m[2] !== label) continue;
    const href = /href="([^"]*)"/.exec(m[1] ?? "")?.[1];
    if (href !== undefined) return href.replace(/&amp;/g, "&");
  }
  return null;
}

/** Rows of the table whose caption has the given id, each as its cells' text. */
export function tableRows(html: string, captionId: string): string[][] {
  const table = new RegExp(`<caption id="${captionId}">[\\s\\S]*?<tbody>([\\s\\S]*?)</tbody>`).exec(html)?.[1] ?? "";
  return [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) => [...(row[1] ?? "").matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) => text(cell[1] ?? "")));
}

/**
 * A write whose after-commit work is held (recordingAfterCommit) and then run by the real queue
 * consumer when `build` is true, so the version's Parquet twin and statistics exist or, with
 * `build: false`, deterministically do not yet. Answers the version's id.
 */
export async function writeWithTwin(
  key: TestKey,
  method: "POST" | "PUT",
  path: string,
  collection: Record<string, unknown>,
  csv: string,
  options: { build?: boolean; fileName?: string } = {},
): Promise<{ id: string; version: string }> {
  const recorder = recordingAfterCommit();
  const response = await signedFetch(recorder.env, method, path, key, { parts: [collectionPart(collection), csvPart(csv, options.fileName)] });
  if (response.status !== (method === "POST" ? 201 : 200)) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  const written = (await response.json()) as { id: string; version: string };
  if (options.build ?? true) {
    const batch = createMessageBatch("pubset-after-commit", recorder.sent.map((body, i) => ({ id: `m${i}`, timestamp: Date.now(), attempts: 1, body })));
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    const result = await getQueueResult(batch, ctx);
    if (result.explicitAcks.length !== recorder.sent.length) throw new Error(`after-commit work not done: ${JSON.stringify(result)}`);
  }
  return written;
}
