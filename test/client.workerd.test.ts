// The client runs inside workerd too: fflate gzip, incremental SHA-256 and WebCrypto signing
// of a streamed multipart body, sent through the worker's own fetch handler.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PubsetClient, PubsetError } from "../src/client/index.ts";
import { ORIGIN } from "./helpers/http.ts";
import { createKey } from "./helpers/keys.ts";

const workerFetch = (input: RequestInfo | URL, init?: RequestInit) => exports.default.fetch(new Request(input, init));

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

describe("PubsetClient in workerd", () => {
  it("creates, appends, reads rows and versions, downloads and deletes", async () => {
    const key = await createKey("client-workerd", "alice");
    const client = new PubsetClient({ url: ORIGIN, key, fetch: workerFetch as typeof fetch });
    const csv = "city,population\nTokyo,37400068\n\"Delhi, NCT\",28514000\n";
    const created = await client.create({ name: "Workerd cities", visibility: "public" }, new File([csv], "cities.csv"));
    expect(created.source).toBe(`/v1/dataset/${created.id}/${created.version}/cities.csv.gz`);
    const appended = await client.append(created.id, new Blob(["Lagos,15388000\n"]).stream());

    const download = await client.download({ source: created.source.replace(created.version, appended.version) }, { format: "csv" });
    expect(await text(download.stream)).toBe(csv + "Lagos,15388000\n");
    expect(await client.rows(created.id, { offset: 1, limit: 1 })).toMatchObject({ rows: [["Delhi, NCT", 28514000]], total: 3 });
    const schema = { fields: [{ name: "city", type: "string" }, { name: "population", type: "integer" }], missingValues: [""] };
    expect(await client.schema(created.id)).toEqual(schema);
    expect(await client.schema(created.id, created.version)).toEqual(schema);
    const retyped = await client.update(created.id, { collection: { schema: { fields: [{ name: "population", type: "number" }] } } });
    expect((await client.schema(created.id, retyped.version)).fields[1]).toEqual({ name: "population", type: "number" });
    const versions = [];
    for await (const v of client.versions(created.id)) versions.push(v.version);
    expect(versions).toEqual([retyped.version, appended.version, created.version]);

    await client.delete(created.id);
    const error = await new PubsetClient({ url: ORIGIN, fetch: workerFetch as typeof fetch }).get(created.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PubsetError);
    expect(error).toMatchObject({ status: 404, code: "not_found" });
  });
});
