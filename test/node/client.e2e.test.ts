// The client against a real `npm start` (wrangler dev, local D1 and R2) over HTTP: the whole
// life of a dataset, retry safety through Idempotency-Key, and requests signed by an
// independent RFC 9421 implementation accepted by the server.
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { createSigner, httpbis } from "http-message-signatures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PubsetClient, PubsetError, type Progress } from "../../src/client/index.ts";
import { readAllBytes } from "../../src/client/byte-streams.ts";
import { e2eServer, type E2eServer } from "./helpers/shared-server.ts";

let server: E2eServer & { stop(): Promise<void> };
let client: PubsetClient;
let anonymous: PubsetClient;

beforeAll(async () => {
  server = await e2eServer();
  client = new PubsetClient({ url: server.url, key: { keyId: server.demoKey.key_id, secret: server.demoKey.secret } });
  anonymous = new PubsetClient({ url: server.url });
});
afterAll(async () => {
  await server?.stop();
});

function citiesCsv(rows: number): string {
  const lines = ["id,city,population"];
  for (let i = 1; i <= rows; i++) lines.push(`${i},"City ${i}, Region ${i % 13}",${(i * 7919) % 1_000_000}`);
  return lines.join("\n") + "\n";
}

async function expectProblem(call: Promise<unknown>, status: number, code: string): Promise<void> {
  const error = await call.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(PubsetError);
  expect(error).toMatchObject({ status, code });
}

describe("a dataset's life through the client", () => {
  it("create → append → download → rows → versions → private → delete", async () => {
    const original = citiesCsv(3000);
    const events: Progress[] = [];
    const created = await client.create(
      { name: "Cities e2e", visibility: "public", properties: { description: "client e2e", key_words: ["geo", "e2e"] } },
      new File([original], "cities.csv"),
      { onProgress: (p) => events.push(p) },
    );
    expect(created).toMatchObject({ name: "Cities e2e", visibility: "public", owner: server.demoKey.user, team: server.demoKey.team });
    expect(created.source).toBe(`/v1/dataset/${created.id}/${created.version}/cities.csv.gz`);
    const lastUpload = events.filter((e) => e.phase === "upload").at(-1);
    expect(lastUpload?.loaded).toBe(lastUpload?.total);
    expect(events.some((e) => e.phase === "prepare" && e.loaded === original.length)).toBe(true);

    const more = "3001,Lagos,15388000\n3002,Osaka,19059856\n";
    const appended = await client.append(created.id, more, { ifMatch: created.version });
    expect(appended.version).not.toBe(created.version);
    const expected = original + more;

    const downloadEvents: Progress[] = [];
    const gz = await client.download({ id: created.id }, { onProgress: (p) => downloadEvents.push(p) });
    expect(gz.fileName).toBe("cities.csv.gz");
    const gzBytes = await readAllBytes(gz.stream);
    expect(gz.compressedBytes).toBe(gzBytes.length);
    expect(downloadEvents.at(-1)).toMatchObject({ phase: "download", loaded: gzBytes.length, total: gzBytes.length });
    expect(gunzipSync(gzBytes).toString("utf8")).toBe(expected);
    const direct = new Uint8Array(await (await fetch(`${server.url}/v1/dataset/${created.id}/${appended.version}/cities.csv.gz`)).arrayBuffer());
    expect(Buffer.compare(gzBytes, direct)).toBe(0);
    const csv = await client.download({ source: `/v1/dataset/${created.id}/${appended.version}/cities.csv.gz` }, { format: "csv" });
    expect(new TextDecoder().decode(await readAllBytes(csv.stream))).toBe(expected);
    const first = await client.download({ id: created.id, version: created.version }, { format: "csv" });
    expect(first.path).toBe(`/v1/dataset/${created.id}/${created.version}/cities.csv.gz`);
    expect(new TextDecoder().decode(await readAllBytes(first.stream))).toBe(original);
    await expectProblem(client.download({ id: created.id, version: crypto.randomUUID() }), 404, "not_found");

    const rows = await client.rows(created.id, { offset: 2999, limit: 5 });
    expect(rows).toEqual({
      columns: ["id", "city", "population"],
      schema: { fields: [{ name: "id", type: "integer" }, { name: "city", type: "string" }, { name: "population", type: "integer" }], missingValues: [""] },
      rows: [[3000, "City 3000, Region 10", (3000 * 7919) % 1_000_000], [3001, "Lagos", 15388000], [3002, "Osaka", 19059856]],
      offset: 2999,
      total: 3002,
      matched: 3002,
      partial: false,
    });

    const versions = [];
    for await (const v of client.versions(created.id, { limit: 1 })) versions.push(v);
    expect(versions.map((v) => [v.version, v.rows])).toEqual([[appended.version, 3002], [created.version, 3000]]);
    expect(await client.get(created.id, created.version)).toMatchObject({ version: created.version, properties: { key_words: ["geo", "e2e"] } });

    const listed = [];
    for await (const item of client.list({ team: server.demoKey.team, limit: 1 })) listed.push(item.id);
    expect(listed).toContain(created.id);
    const found = [];
    for await (const item of anonymous.search("cities e2e")) found.push(item.id);
    expect(found).toContain(created.id);

    const updated = await client.update(created.id, { collection: { visibility: "private" } });
    expect(updated.visibility).toBe("private");
    await expectProblem(anonymous.get(created.id), 404, "not_found");
    expect((await client.get(created.id)).visibility).toBe("private");

    await client.delete(created.id);
    await expectProblem(client.get(created.id), 404, "not_found");
  });

  it("retries a write whose answer was lost with the same Idempotency-Key, so it lands once", async () => {
    const created = await client.create({ name: "Idempotent" }, "a,b\n1,2\n");
    const keys: Array<string | null> = [];
    let dropped = false;
    const losesFirstAnswer = async (input: RequestInfo | URL, init?: RequestInit) => {
      keys.push(new Headers(init?.headers).get("idempotency-key"));
      const response = await fetch(input, init);
      if (dropped) return response;
      dropped = true;
      await response.body?.cancel();
      throw new TypeError("connection reset (simulated after the server answered)");
    };
    const flaky = new PubsetClient({
      url: server.url,
      key: { keyId: server.demoKey.key_id, secret: server.demoKey.secret },
      fetch: losesFirstAnswer as typeof fetch,
      retry: { baseDelayMs: 10 },
    });
    const appended = await flaky.append(created.id, "3,4\n");
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
    expect((await client.rows(created.id)).total).toBe(2);
    const versions = [];
    for await (const v of client.versions(created.id)) versions.push(v.version);
    expect(versions).toEqual([appended.version, created.version]);
  });

  it("reports API errors with their code and problem members", async () => {
    const created = await client.create({ name: "Errors" }, "a,b\n1,2\n");
    const error = await client.append(created.id, "1,2,3\n").catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 422, code: "column_count_mismatch", problem: { row: 1, expected: 2, found: 3 } });
    await expectProblem(new PubsetClient({ url: server.url, key: { keyId: server.demoKey.key_id, secret: "wrong" } }).get(created.id), 401, "signature_invalid");
  });
});

describe("requests signed by http-message-signatures", () => {
  it("are accepted by the server: a multipart create and a signed list", async () => {
    const key = createSigner(server.demoKey.secret, "hmac-sha256", server.demoKey.key_id);
    const boundary = "interop-boundary-7d1f";
    const body = [
      `--${boundary}\r\nContent-Disposition: form-data; name="collection"\r\nContent-Type: application/json\r\n\r\n{"name":"Interop"}\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="dataset"; filename="interop.csv"\r\nContent-Type: text/csv\r\n\r\nx,y\n1,2\n\r\n`,
      `--${boundary}--\r\n`,
    ].join("");
    const url = `${server.url}/v1/dataset`;
    const headers = {
      "content-type": `multipart/form-data; boundary=${boundary}`,
      "content-digest": `sha-256=:${createHash("sha256").update(body).digest("base64")}:`,
    };
    const signed = await httpbis.signMessage(
      { key, fields: ["@method", "@authority", "@path", "content-digest", "content-type"], params: ["created", "keyid", "nonce", "alg"], paramValues: { nonce: crypto.randomUUID() } },
      { method: "POST", url, headers },
    );
    const response = await fetch(url, { method: "POST", headers: signed.headers as Record<string, string>, body });
    expect(response.status).toBe(201);
    const created = (await response.json()) as { id: string; owner: string };
    expect(created.owner).toBe(server.demoKey.user);

    const listUrl = `${server.url}/v1/dataset?owner=${server.demoKey.user}&limit=1000`;
    const signedList = await httpbis.signMessage({ key, fields: ["@method", "@authority", "@path", "@query"], params: ["created", "keyid", "nonce"] }, { method: "GET", url: listUrl, headers: {} });
    const list = await fetch(listUrl, { headers: signedList.headers as Record<string, string> });
    expect(list.status).toBe(200);
    const ids = ((await list.json()) as { results: Array<{ id: string; visibility: string }> }).results.map((r) => r.id);
    expect(ids).toContain(created.id);
  });
});
