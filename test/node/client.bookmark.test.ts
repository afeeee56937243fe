// The client and the CLI keep the newest X-D1-Bookmark they saw (bookmarks sort as strings)
// and send it on every later request (docs/edge-and-caching.md "Replicas"), across CLI invocations too.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PubsetClient } from "../../src/client/index.ts";
import { BOOKMARK_MAX_AGE_MS, bookmarkFile, readBookmark, saveBookmark } from "../../src/cli/bookmark-file.ts";

const B1 = "00000000-00000010-00000000-00000000000000000000000000000000";
const B2 = "00000000-00000020-00000000-00000000000000000000000000000000";
const B3 = "00000000-00000030-00000000-00000000000000000000000000000000";

function scripted(bookmarks: Array<string | null>) {
  const sent: Array<string | null> = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    sent.push(new Request(input, init).headers.get("x-d1-bookmark"));
    const bookmark = bookmarks.shift() ?? null;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (bookmark !== null) headers["x-d1-bookmark"] = bookmark;
    return new Response(JSON.stringify({ id: "d", name: "n", version: "v", visibility: "public", created: "", properties: {} }), { headers });
  };
  return { sent, fetch: fetch as typeof globalThis.fetch };
}

describe("client bookmarks", () => {
  it("sends none at first, then always the newest seen, never an older one", async () => {
    const { sent, fetch } = scripted([B2, B1, null, B3, null]);
    const client = new PubsetClient({ url: "http://api.test", fetch });
    for (let i = 0; i < 5; i++) await client.get("d");
    expect(sent).toEqual([null, B2, B2, B2, B3]);
    expect(client.bookmark).toBe(B3);
  });

  it("starts from a bookmark it is given", async () => {
    const { sent, fetch } = scripted([null]);
    await new PubsetClient({ url: "http://api.test", fetch, bookmark: B2 }).get("d");
    expect(sent).toEqual([B2]);
  });
});

describe("the CLI's bookmark file", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("keeps the newest bookmark per server beside the config file, mode 0600", () => {
    const dir = mkdtempSync(join(tmpdir(), "pubset-bookmarks-"));
    dirs.push(dir);
    const file = bookmarkFile({ PUBSET_CONFIG: join(dir, "config.json") });
    saveBookmark(file, "http://a.test", B2);
    saveBookmark(file, "http://a.test", B1);
    saveBookmark(file, "http://b.test", B3);
    expect(readBookmark(file, "http://a.test")).toBe(B2);
    expect(readBookmark(file, "http://b.test")).toBe(B3);
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")))).toEqual(["http://a.test", "http://b.test"]);
  });

  it("forgets a bookmark after a day (D1 refuses old ones; replicas lag by seconds)", () => {
    const dir = mkdtempSync(join(tmpdir(), "pubset-bookmarks-"));
    dirs.push(dir);
    const file = bookmarkFile({ PUBSET_CONFIG: join(dir, "config.json") });
    const then = Date.now() - BOOKMARK_MAX_AGE_MS - 1;
    saveBookmark(file, "http://a.test", B3, then);
    expect(readBookmark(file, "http://a.test", then + 1000)).toBe(B3);
    expect(readBookmark(file, "http://a.test")).toBeUndefined();
    saveBookmark(file, "http://a.test", B1);
    expect(readBookmark(file, "http://a.test")).toBe(B1);
  });
});
