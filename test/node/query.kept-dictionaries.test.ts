// The isolate's store of the twin's dictionary pages (src/query/kept-dictionaries.ts): bounded
// in bytes, the least recently used dropped first, each page kept apart from the read it came in.
import { describe, expect, it } from "vitest";
import { KeptDictionaries } from "../../src/query/kept-dictionaries.ts";

const page = (length: number, fill: number) => new Uint8Array(length).fill(fill);

describe("KeptDictionaries", () => {
  it("finds a page by its part's key and its offset, and nothing under another part or offset", () => {
    const kept = new KeptDictionaries(1000);
    kept.keep("parts/a", 100, page(10, 1));
    expect(kept.get("parts/a", 100)).toEqual(page(10, 1));
    expect(kept.get("parts/a", 101)).toBeUndefined();
    expect(kept.get("parts/b", 100)).toBeUndefined();
    // A key that is a prefix of another does not reach its pages.
    kept.keep("parts/a1", 0, page(10, 2));
    expect(kept.get("parts/a", 10)).toBeUndefined();
    expect(kept.get("parts/a1", 0)).toEqual(page(10, 2));
  });

  it("holds at most its bound in bytes, dropping the least recently used page first", () => {
    const kept = new KeptDictionaries(300);
    kept.keep("p", 0, page(100, 1));
    kept.keep("p", 100, page(100, 2));
    kept.keep("p", 200, page(100, 3));
    expect(kept.bytes).toBe(300);
    // Asked for, so the page at 0 is now the most recently used; the one at 100 goes first.
    expect(kept.get("p", 0)).toBeDefined();
    kept.keep("q", 0, page(150, 4));
    expect(kept.bytes).toBeLessThanOrEqual(300);
    expect(kept.get("p", 100)).toBeUndefined();
    expect(kept.get("p", 200)).toBeUndefined();
    expect(kept.get("p", 0)).toEqual(page(100, 1));
    expect(kept.get("q", 0)).toEqual(page(150, 4));
    // A page past the bound is not kept, and drops nothing.
    kept.keep("r", 0, page(301, 5));
    expect(kept.get("r", 0)).toBeUndefined();
    expect(kept.bytes).toBe(250);
  });

  it("keeps a copy of the page, not a view that would hold the whole read it came in", () => {
    const kept = new KeptDictionaries();
    const read = page(64 * 1024, 7);
    kept.keep("p", 4096, read.subarray(4096, 4096 + 512));
    const held = kept.get("p", 4096)!;
    expect(held.length).toBe(512);
    expect(held.buffer.byteLength).toBe(512);
    expect(kept.bytes).toBe(512);
    // Changing the read's bytes afterwards does not change the kept page.
    read.fill(0);
    expect(held[0]).toBe(7);
  });
});
