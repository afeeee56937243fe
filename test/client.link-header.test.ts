// RFC 8288 Link parsing in the client: next-page links (docs/api.md#lists) and a record's content link.
import { describe, expect, it } from "vitest";
import { linkTarget, nextLinkTarget } from "../src/client/link-header.ts";

describe("linkTarget", () => {
  it("finds a relation among several links and several relation types", () => {
    const header = '</v1/dataset/a/b/c.csv.gz>; rel="enclosure"; type="application/gzip", </v1/dataset?cursor=x>; rel="prev next"';
    expect(linkTarget(header, "enclosure")).toBe("/v1/dataset/a/b/c.csv.gz");
    expect(nextLinkTarget(header)).toBe("/v1/dataset?cursor=x");
  });

  it("accepts a bare rel token, any case, and answers null when the relation is absent", () => {
    expect(linkTarget("<https://x.test/p?cursor=1>; rel=NEXT", "next")).toBe("https://x.test/p?cursor=1");
    expect(linkTarget('</a>; rel="enclosure"', "next")).toBeNull();
    expect(linkTarget(null, "next")).toBeNull();
    expect(linkTarget("", "enclosure")).toBeNull();
  });
});
