// The bench-only endpoints (src/bench/routes.ts) are served by the bench's own worker entry
// (src/bench-entry.ts) and by nothing the deployment runs: the deployed entry answers 404
// whatever its vars, while the bench entry measures and still serves the whole API.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import benchWorker from "../src/bench-entry.ts";
import { READ_WAYS } from "../src/bench/inflate.ts";
import { crc32 } from "../src/wire/crc32.ts";
import { compressSegment, concatBytes } from "../src/wire/deflate-segment.ts";
import { collectionPart, csvPart, ORIGIN, send, write } from "./helpers/http.ts";
import { createKey } from "./helpers/keys.ts";

const BYTES = new TextEncoder().encode("id,name\n1,Ada\n".repeat(1000));
const PATHS = ["/__bench/gzip", "/__bench/discard", "/__bench/deflate?level=3"];

async function viaBenchEntry(path: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  // The handler's type wants an incoming request's `cf`; a test request has none.
  const request = new Request(`${ORIGIN}${path}`, init) as Parameters<typeof benchWorker.fetch>[0];
  const response = await benchWorker.fetch(request, env, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

describe("/__bench", () => {
  it("is not found in the deployed worker, even with the var that once enabled it", async () => {
    for (const path of PATHS) {
      const response = await send("POST", path, { body: BYTES, headers: { "Content-Type": "text/csv" } });
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(((await response.json()) as { code: string }).code).toBe("not_found");
    }
    expect("BENCH_ENDPOINTS" in env).toBe(false);
  });

  it("gzips, deflates at a level, or only reads the body in the bench entry", async () => {
    const gzip = (await (await viaBenchEntry("/__bench/gzip", { method: "POST", body: BYTES })).json()) as { inputBytes: number; outputBytes: number };
    expect(gzip.inputBytes).toBe(BYTES.length);
    expect(gzip.outputBytes).toBeGreaterThan(0);
    expect(gzip.outputBytes).toBeLessThan(BYTES.length);
    const sizes: number[] = [];
    for (const level of [1, 9]) {
      const response = await viaBenchEntry(`/__bench/deflate?level=${level}`, { method: "POST", body: BYTES });
      const counts = (await response.json()) as { inputBytes: number; outputBytes: number; seconds: number };
      expect(counts.inputBytes).toBe(BYTES.length);
      expect(counts.seconds).toBeGreaterThanOrEqual(0);
      sizes.push(counts.outputBytes);
    }
    expect(sizes[0]).toBeLessThan(BYTES.length);
    expect(sizes[1]).toBeLessThanOrEqual(sizes[0]!);
    const discard = (await (await viaBenchEntry("/__bench/discard", { method: "POST", body: BYTES })).json()) as { inputBytes: number };
    expect(discard.inputBytes).toBe(BYTES.length);
  });

  it("answers problems for bad bench input, and serves the API beside the bench routes", async () => {
    const bad = await viaBenchEntry("/__bench/deflate?level=12", { method: "POST", body: BYTES });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { code: string }).code).toBe("invalid_query");
    const list = await viaBenchEntry("/v1/dataset?limit=1");
    expect(list.status).toBe(200);
    expect(await list.json()).toHaveProperty("results");
  });

  it("encodes a version's segments as the twin build does, with or without its statistics", async () => {
    const key = await createKey("team-bench", "alice");
    const csv = "id,city,price\n" + Array.from({ length: 500 }, (_, i) => `${i},${["Oslo", "Lima"][i % 2]},${i / 4}`).join("\n") + "\n";
    const created = await write("POST", "/v1/dataset", key, [collectionPart({ name: "bench parquet" }), csvPart(csv, "prices.csv")]);
    expect(created.status).toBe(201);
    const { id, version } = (await created.json()) as { id: string; version: string };
    const encoded = async (statistics: string, segment = "") => (await viaBenchEntry(`/__bench/parquet?dataset=${id}&version=${version}&statistics=${statistics}${segment}`, { method: "POST" })).json() as Promise<{ rows: number; segments: number; outputBytes: number; summaryBytes: number; seconds: number }>;
    const on = await encoded("on");
    const off = await encoded("off");
    expect([on.rows, off.rows]).toEqual([500, 500]);
    expect(on.segments).toBe(1);
    expect(on.outputBytes).toBe(off.outputBytes);
    expect(on.summaryBytes).toBeGreaterThan(0);
    expect(off.summaryBytes).toBe(0);
    const first = await encoded("on", "&segment=0");
    expect([first.rows, first.outputBytes, first.summaryBytes]).toEqual([on.rows, on.outputBytes, on.summaryBytes]);
    const beyond = await viaBenchEntry(`/__bench/parquet?dataset=${id}&version=${version}&statistics=on&segment=1`, { method: "POST" });
    expect(beyond.status).toBe(400);
    expect(((await beyond.json()) as { code: string }).code).toBe("invalid_query");
    expect((await viaBenchEntry(`/__bench/parquet?dataset=${id}&version=${version}&statistics=on&segment=-1`, { method: "POST" })).status).toBe(400);
    expect((await viaBenchEntry(`/__bench/parquet?dataset=${id}&version=${version}&statistics=maybe`, { method: "POST" })).status).toBe(400);
    expect((await viaBenchEntry(`/__bench/parquet?dataset=${id}&version=${version}&statistics=on&segment=0&past=x`, { method: "POST" })).status).toBe(400);
    // Columns named past the distinct limit stay so; 500 rows put none past it themselves.
    expect(((await encoded("on", "&segment=0&past=2")) as unknown as { distinctPast: number[] }).distinctPast).toEqual([2]);
    expect(((await encoded("on", "&segment=0&past=")) as unknown as { distinctPast: number[] }).distinctPast).toEqual([]);
    expect((await viaBenchEntry(`/__bench/parquet?dataset=${id}&version=nope&statistics=on`, { method: "POST" })).status).toBe(404);
  });

  it("reads a stored segment back each way it compares, with the same bytes and records", async () => {
    const raw = new TextEncoder().encode("id,name\n" + Array.from({ length: 20_000 }, (_, i) => `${i},Zoë ${i % 97}`).join("\n") + "\n");
    const halves = [compressSegment(raw.subarray(0, 100_000), 3), compressSegment(raw.subarray(100_000), 3)];
    const segment = concatBytes(halves.map((h) => h.data));
    const stored = (await (await viaBenchEntry("/__bench/segment", { method: "PUT", body: segment })).json()) as { key: string; bytes: number };
    expect(stored.bytes).toBe(segment.length);
    const parts = halves.map((h) => `${h.compressedBytes}:${h.rawBytes}`).join(",");
    for (const way of READ_WAYS) {
      const response = await viaBenchEntry(`/__bench/inflate?key=${encodeURIComponent(stored.key)}&way=${way}&size=65536&slice=20000&cells=${way === "r2" ? "off" : "on"}&parts=${parts}&crc=${crc32(raw)}`, { method: "POST" });
      expect(response.status, way).toBe(200);
      const read = (await response.json()) as { bytes: number; records: number };
      expect(read.bytes, way).toBe(way === "r2" ? segment.length : raw.length);
      expect(read.records, way).toBe(way === "r2" ? 0 : 20_001);
    }
    const bad = await viaBenchEntry(`/__bench/inflate?key=${encodeURIComponent(stored.key)}&way=sideways`, { method: "POST" });
    expect(bad.status).toBe(400);
    expect((await viaBenchEntry("/__bench/inflate?key=datasets/x&way=stream", { method: "POST" })).status).toBe(400);
    expect((await viaBenchEntry(`/__bench/inflate?key=${encodeURIComponent(stored.key)}&way=plain&crc=-1`, { method: "POST" })).status).toBe(400);
  });
});
