// The house rules of the source tree (docs/layout.md), checked on the import graph that
// `npm run check:imports` prints: no import circles, and the client, the CLI and the pure rooms
// (wire/, model/, csv/, schema/) never reach into a server room, and no import runs up a layer.
import { describe, expect, it } from "vitest";
import { forbiddenImports, importCircles, importGraph, layerOf, upwardImports } from "../../scripts/import-graph.ts";

describe("source layout", () => {
  const graph = importGraph();

  it("has no import circles", () => {
    expect(importCircles(graph).map((circle) => circle.join(" → "))).toEqual([]);
  });

  it("keeps the client, the CLI and the pure rooms out of the server's rooms", () => {
    expect(forbiddenImports(graph)).toEqual([]);
  });

  it("never imports from a lower layer up to a higher one", () => {
    expect(upwardImports(graph)).toEqual([]);
    // The layers mean what docs/layout.md says: pure below stores below flows below the app.
    expect(layerOf("wire/crc32.ts")).toBeLessThan(layerOf("storage/segment-store.ts"));
    expect(layerOf("storage/segment-store.ts")).toBeLessThan(layerOf("write/write.ts"));
    expect(layerOf("write/write.ts")).toBeLessThan(layerOf("app.ts"));
  });

  it("sees the imports it checks (the graph is not empty by mistake)", () => {
    expect(graph.get("client/gzip-stream.ts")).toContain("wire/parted-gzip-header.ts");
  });
});
