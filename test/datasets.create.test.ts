import { describe, expect, it } from "vitest";
import { keptObjectCount } from "./helpers/storage.ts";
import { createKey } from "./helpers/keys.ts";
import { collectionPart, createDataset, csvPart, download, expectProblem, gunzipText, send, write } from "./helpers/http.ts";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const CSV = 'city,country,population\r\nParis,France,2102650\r\n"Washington, D.C.",USA,689545\r\n';

describe("POST /v1/dataset", () => {
  it("creates a dataset with the exact create shape, 201 and Location", async () => {
    const key = await createKey("team-create", "alice");
    const response = await write("POST", "/v1/dataset", key, [
      collectionPart({ name: "  Cities ", visibility: "public", properties: { description: "Big cities", key_words: ["geo"] } }),
      csvPart(CSV, "../../etc/My Cities.csv"),
    ]);
    expect(response.status).toBe(201);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["id", "name", "owner", "properties", "source", "team", "version", "visibility"]);
    expect(body.id).toMatch(UUID_V4);
    expect(body.version).toMatch(UUID_V4);
    expect(body).toMatchObject({ name: "Cities", owner: "alice", team: "team-create", visibility: "public" });
    expect(body.properties).toEqual({ description: "Big cities", key_words: ["geo"] });
    expect(body.source).toBe(`/v1/dataset/${body.id}/${body.version}/My_Cities.csv.gz`);
    expect(response.headers.get("location")).toBe(`/v1/dataset/${body.id}`);
  });

  it("defaults visibility to private and properties to {}; file name to dataset.csv", async () => {
    const key = await createKey("team-create", "bob");
    const response = await write("POST", "/v1/dataset", key, [
      collectionPart({ name: "Defaults" }),
      { name: "dataset", value: "a,b\n1,2\n" },
    ]);
    expect(response.status).toBe(201);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body.visibility).toBe("private");
    expect(body.properties).toEqual({});
    expect(String(body.source).endsWith("/dataset.csv.gz")).toBe(true);
  });

  it("serves the source as one gzip with the uploaded bytes, Content-Length and type", async () => {
    const key = await createKey("team-create", "carol");
    const created = await createDataset(key, CSV, { name: "Cities", visibility: "public" });
    const response = await download(created.source);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/gzip");
    const bytes = new Uint8Array(await response.clone().arrayBuffer());
    expect(Number(response.headers.get("content-length"))).toBe(bytes.length);
    expect(await gunzipText(response)).toBe(CSV);
  });

  it("returns the record by id with the get shape", async () => {
    const key = await createKey("team-create", "dave");
    const created = await createDataset(key, CSV, { name: "Cities", properties: { contact_name: "Dave" } });
    for (const path of [`/v1/dataset/${created.id}`, `/v1/dataset/${created.id}/${created.version}`, `/v1/dataset/${created.id}/latest`]) {
      const response = await send("GET", path, { key });
      expect(response.status).toBe(200);
      const body = (await response.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(["created", "id", "name", "properties", "version", "visibility"]);
      expect(body).toMatchObject({ id: created.id, version: created.version, name: "Cities", visibility: "private" });
      expect(body.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(response.headers.get("cache-control")).toBe("private, no-store");
    }
  });

  it("drops a BOM and trailing blank lines, keeps everything else byte for byte", async () => {
    const key = await createKey("team-create", "erin");
    const created = await createDataset(key, "\uFEFFa,b\n1,\"x\ny\"\n\n\n", { name: "Bom", visibility: "public" });
    expect(await gunzipText(await download(created.source))).toBe('a,b\n1,"x\ny"\n');
  });
});

describe("POST /v1/dataset rejects bad input and stores nothing", () => {
  // What a refused write uploaded stays only as an unclaimed intent for the clean-up.
  const objectCount = keptObjectCount;

  it.each([
    ["no collection part", [csvPart("a\n1\n")]],
    ["no dataset part", [collectionPart({ name: "x" })]],
    ["collection not JSON", [{ name: "collection", value: "{nope" }, csvPart("a\n1\n")]],
    ["collection an array", [collectionPart([1]), csvPart("a\n1\n")]],
    ["unknown key", [collectionPart({ name: "x", visiblity: "public" }), csvPart("a\n1\n")]],
    ["wrong type", [collectionPart({ name: 3 }), csvPart("a\n1\n")]],
    ["blank name", [collectionPart({ name: "   " }), csvPart("a\n1\n")]],
    ["bad visibility", [collectionPart({ name: "x", visibility: "secret" }), csvPart("a\n1\n")]],
    ["key_words not strings", [collectionPart({ name: "x", properties: { key_words: [1] } }), csvPart("a\n1\n")]],
    ["unknown part", [collectionPart({ name: "x" }), csvPart("a\n1\n"), { name: "extra", value: "1" }]],
    ["dataset after invalid collection", [collectionPart({ name: "" }), csvPart("a\n1\n")]],
  ])("%s → 400 invalid_request", async (_label, parts) => {
    const key = await createKey("team-bad", "frank");
    const before = await objectCount();
    await expectProblem(await write("POST", "/v1/dataset", key, parts), 400, "invalid_request");
    expect(await objectCount()).toBe(before);
  });

  it.each([
    ["ragged row", "a,b\n1,2\n3\n", "invalid_csv", { row: 3, expected: 2, found: 1, detail: "row 3 has 1 field; the header has 2" }],
    ["unbalanced quote", 'a,b\n1,"2\n', "invalid_csv", {}],
    ["NUL byte", "a,b\n1,\u0000\n", "invalid_csv", {}],
    ["empty content", "", "empty_csv", {}],
  ])("%s → 422 %s, nothing stored", async (_label, csv, code, extra) => {
    const key = await createKey("team-bad", "grace");
    const before = await objectCount();
    const body = await expectProblem(await write("POST", "/v1/dataset", key, [collectionPart({ name: "x" }), csvPart(csv)]), 422, code);
    expect(body).toMatchObject(extra);
    expect(await objectCount()).toBe(before);
  });

  it("invalid UTF-8 → 422 invalid_csv", async () => {
    const key = await createKey("team-bad", "heidi");
    const bytes = new Uint8Array([0x61, 0x0a, 0xc3, 0x28, 0x0a]);
    const body = await expectProblem(await write("POST", "/v1/dataset", key, [collectionPart({ name: "x" }), csvPart(bytes)]), 422, "invalid_csv");
    // Most often a spreadsheet's export in a legacy encoding: the detail says how to fix it.
    expect(body).toMatchObject({ row: 2, detail: expect.stringContaining("save the file as UTF-8") });
  });

  it("a body that is not multipart → 415", async () => {
    const key = await createKey("team-bad", "ivan");
    const body = new TextEncoder().encode('{"name":"x"}');
    const response = await send("POST", "/v1/dataset", { key, body, headers: { "Content-Type": "application/json" } });
    await expectProblem(response, 415, "unsupported_media_type");
  });

  it("an unsigned write → 401 signature_required", async () => {
    const problem = await expectProblem(await write("POST", "/v1/dataset", undefined, [collectionPart({ name: "x" }), csvPart("a\n1\n")]), 401, "signature_required");
    // The detail is the newcomer's way in (issue 13): the CLI's login and the signing helper.
    expect(String(problem.detail)).toContain("pubset login");
    expect(String(problem.detail)).toContain("npm run sign");
  });
});

describe("CSV size limits", () => {
  it("a field over MAX_FIELD_BYTES → 413 payload_too_large naming the limit", async () => {
    const key = await createKey("team-limits", "lim");
    const big = "x".repeat(1024 * 1024 + 1);
    const body = await expectProblem(await write("POST", "/v1/dataset", key, [collectionPart({ name: "x" }), csvPart(`a\n${big}\n`)]), 413, "payload_too_large");
    expect(body).toMatchObject({ limit: "MAX_FIELD_BYTES" });
  });
});
