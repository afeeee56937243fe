import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { signRequest } from "../src/wire/sign.ts";
import { completeIdempotencyKey, findIdempotencyRecord, purgeExpiredIdempotencyRecords, reserveIdempotencyKey } from "../src/write/store.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { ORIGIN, collectionPart, createDataset, csvPart, expectProblem, gunzipText, multipart, send, type Part } from "./helpers/http.ts";
import { mulberry32, randomInt } from "./helpers/random.ts";

const TEAM = "idem-team";
const random = mulberry32(0x1de7);
const DAY = 24 * 60 * 60;

/** A fixed multipart body, so that resending it gives the same Content-Digest. */
function body(parts: Part[]) {
  return multipart(parts, `idem-boundary-${randomInt(random, 0, 1e9)}`);
}

async function idempotent(method: "POST" | "PUT", path: string, key: TestKey, idempotencyKey: string, payload: ReturnType<typeof body>) {
  return send(method, path, {
    key,
    body: payload.body,
    headers: { "Content-Type": payload.contentType, "Idempotency-Key": idempotencyKey },
  });
}

async function latest(id: string, key: TestKey) {
  const response = await send("GET", `/v1/dataset/${id}`, { key });
  expect(response.status).toBe(200);
  return (await response.json()) as { version: string };
}

async function content(id: string, version: string, key: TestKey): Promise<string> {
  return gunzipText(await send("GET", `/v1/dataset/${id}/${version}/data.csv.gz`, { key }));
}

async function teamDatasets(key: TestKey): Promise<Array<{ id: string; name: string }>> {
  const response = await send("GET", "/v1/dataset?limit=1000", { key });
  return ((await response.json()) as { results: Array<{ id: string; name: string }> }).results;
}

describe("Idempotency-Key on writes", () => {
  it("replays a create: same status, id, version and Location; one dataset exists", async () => {
    const key = await createKey(TEAM, "idem-create");
    const payload = body([collectionPart({ name: "idem-create-once" }), csvPart("a,b\n1,2\n")]);
    const first = await idempotent("POST", "/v1/dataset", key, "create-1", payload);
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const created = (await first.json()) as Record<string, unknown>;

    const again = await idempotent("POST", "/v1/dataset", key, "create-1", payload);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("location")).toBe(first.headers.get("location"));
    expect(again.headers.get("content-type")).toContain("application/json");
    expect(again.headers.get("access-control-allow-origin")).toBe("*");
    expect(again.headers.get("cache-control")).toBe("private, no-store");
    expect(await again.json()).toEqual(created);

    const mine = (await teamDatasets(key)).filter((d) => d.name === "idem-create-once");
    expect(mine.map((d) => d.id)).toEqual([created.id]);
  });

  it("replays an append without making a second version", async () => {
    const key = await createKey(TEAM, "idem-append");
    const created = await createDataset(key, "n\n0\n");
    const payload = body([csvPart("1\n")]);
    const first = await idempotent("POST", `/v1/dataset/${created.id}`, key, "append-1", payload);
    expect(first.status).toBe(201);
    const appended = (await first.json()) as { version: string };
    const again = await idempotent("POST", `/v1/dataset/${created.id}`, key, "append-1", payload);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(((await again.json()) as { version: string }).version).toBe(appended.version);
    expect((await latest(created.id, key)).version).toBe(appended.version);
    expect(await content(created.id, appended.version, key)).toBe("n\n0\n1\n");
  });

  it("same key with a different body → 422 idempotency_key_reused", async () => {
    const key = await createKey(TEAM, "idem-body");
    const created = await createDataset(key, "n\n0\n");
    expect((await idempotent("POST", `/v1/dataset/${created.id}`, key, "body-1", body([csvPart("1\n")]))).status).toBe(201);
    await expectProblem(await idempotent("POST", `/v1/dataset/${created.id}`, key, "body-1", body([csvPart("2\n")])), 422, "idempotency_key_reused");
  });

  it("same key on a different path or method → 422 idempotency_key_reused", async () => {
    const key = await createKey(TEAM, "idem-path");
    const one = await createDataset(key, "n\n0\n");
    const two = await createDataset(key, "n\n0\n");
    const payload = body([csvPart("1\n")]);
    expect((await idempotent("POST", `/v1/dataset/${one.id}`, key, "path-1", payload)).status).toBe(201);
    await expectProblem(await idempotent("POST", `/v1/dataset/${two.id}`, key, "path-1", payload), 422, "idempotency_key_reused");
    await expectProblem(await idempotent("PUT", `/v1/dataset/${one.id}`, key, "path-1", payload), 422, "idempotency_key_reused");
    expect((await latest(two.id, key)).version).toBe(two.version);
  });

  it("concurrent requests with one key make exactly one version; the others get 409 or the replay", async () => {
    const key = await createKey(TEAM, "idem-race");
    const created = await createDataset(key, "n\n0\n");
    const payload = body([csvPart("1\n")]);
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => idempotent("POST", `/v1/dataset/${created.id}`, key, "race-1", payload)),
    );
    const fresh = responses.filter((r) => r.status === 201 && r.headers.get("idempotent-replayed") === null);
    expect(fresh.length).toBe(1);
    const version = ((await fresh[0]!.json()) as { version: string }).version;
    for (const response of responses) {
      if (response === fresh[0]) continue;
      if (response.status === 409) {
        expect(response.headers.get("retry-after")).not.toBeNull();
        await expectProblem(response, 409, "conflict");
      } else {
        expect(response.status).toBe(201);
        expect(response.headers.get("idempotent-replayed")).toBe("true");
        expect(((await response.json()) as { version: string }).version).toBe(version);
      }
    }
    expect((await latest(created.id, key)).version).toBe(version);
    expect(await content(created.id, version, key)).toBe("n\n0\n1\n");
  });

  it("concurrent creates with one key make exactly one dataset", async () => {
    const key = await createKey(TEAM, "idem-race-create");
    const payload = body([collectionPart({ name: "idem-race-create" }), csvPart("a\n1\n")]);
    const responses = await Promise.all(Array.from({ length: 6 }, () => idempotent("POST", "/v1/dataset", key, "race-create", payload)));
    for (const response of responses) expect([201, 409]).toContain(response.status);
    expect((await teamDatasets(key)).filter((d) => d.name === "idem-race-create").length).toBe(1);
  });

  it("a failed request frees its key: the corrected retry succeeds, then replays", async () => {
    const key = await createKey(TEAM, "idem-retry");
    const bad = body([collectionPart({ name: "idem-retry" }), csvPart('a,b\n1,"2\n')]);
    await expectProblem(await idempotent("POST", "/v1/dataset", key, "retry-1", bad), 422, "invalid_csv");
    await expectProblem(await idempotent("POST", "/v1/dataset", key, "retry-1", bad), 422, "invalid_csv");
    const good = body([collectionPart({ name: "idem-retry" }), csvPart("a,b\n1,2\n")]);
    const ok = await idempotent("POST", "/v1/dataset", key, "retry-1", good);
    expect(ok.status).toBe(201);
    expect(ok.headers.get("idempotent-replayed")).toBeNull();
    const replayed = await idempotent("POST", "/v1/dataset", key, "retry-1", good);
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(await replayed.json()).toEqual(await ok.json());
  });

  it("keys of different API keys are independent", async () => {
    const one = await createKey(TEAM, "idem-one");
    const two = await createKey(TEAM, "idem-two");
    const payload = body([collectionPart({ name: "idem-shared-key" }), csvPart("a\n1\n")]);
    const first = await idempotent("POST", "/v1/dataset", one, "shared-1", payload);
    const second = await idempotent("POST", "/v1/dataset", two, "shared-1", payload);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    const [a, b] = [(await first.json()) as { id: string; owner: string }, (await second.json()) as { id: string; owner: string }];
    expect(a.id).not.toBe(b.id);
    expect([a.owner, b.owner]).toEqual(["idem-one", "idem-two"]);
  });

  it.each([
    ["empty", ""],
    ["longer than 255 characters", "k".repeat(256)],
    ["not ASCII", "clé"],
    ["a control character", "a\u0001b"],
  ])("a key that is %s → 400 invalid_request", async (_label, value) => {
    const key = await createKey(TEAM, "idem-bad-header");
    await expectProblem(await idempotent("POST", "/v1/dataset", key, value, body([collectionPart({ name: "x" }), csvPart("a\n1\n")])), 400, "invalid_request");
  });

  it("accepts a 255-character key; an unsigned write with a key is still 401", async () => {
    const key = await createKey(TEAM, "idem-long");
    const payload = body([collectionPart({ name: "idem-long" }), csvPart("a\n1\n")]);
    expect((await idempotent("POST", "/v1/dataset", key, "~".repeat(255), payload)).status).toBe(201);
    const unsigned = await send("POST", "/v1/dataset", { body: payload.body, headers: { "Content-Type": payload.contentType, "Idempotency-Key": "u-1" } });
    await expectProblem(unsigned, 401, "signature_required");
  });

  it("a replay still checks the body against its signed Content-Digest", async () => {
    const key = await createKey(TEAM, "idem-digest");
    const payload = body([collectionPart({ name: "idem-digest" }), csvPart("a\n1\n")]);
    expect((await idempotent("POST", "/v1/dataset", key, "digest-1", payload)).status).toBe(201);
    const url = `${ORIGIN}/v1/dataset`;
    const headers = await signRequest(
      { method: "POST", url, headers: { "Content-Type": payload.contentType, "Idempotency-Key": "digest-1" }, body: payload.body },
      { keyId: key.keyId, secret: key.secret },
    );
    const tampered = payload.body.slice();
    const at = tampered.length - 5;
    tampered[at] = (tampered[at] ?? 0) ^ 1;
    await expectProblem(await exports.default.fetch(new Request(url, { method: "POST", headers, body: tampered })), 401, "digest_mismatch");
  });
});

describe("expired Idempotency-Key records", () => {
  const now = () => Math.floor(Date.now() / 1000);

  it("an in-flight record past its lease is taken over", async () => {
    const key = await createKey(TEAM, "idem-stale");
    const scope = { keyId: key.keyId, idempotencyKey: "stale-1" };
    expect(await reserveIdempotencyKey(env.DB, scope, { token: "dead", fingerprint: "x", nowSeconds: now() - 2 * DAY, leaseSeconds: 60 })).toBe(true);
    const response = await idempotent("POST", "/v1/dataset", key, "stale-1", body([collectionPart({ name: "idem-stale" }), csvPart("a\n1\n")]));
    expect(response.status).toBe(201);
  });

  it("a stored answer past its 24 h is ignored: the key works for a new request", async () => {
    const key = await createKey(TEAM, "idem-expired");
    const scope = { keyId: key.keyId, idempotencyKey: "expired-1" };
    const then = now() - 2 * DAY;
    expect(await reserveIdempotencyKey(env.DB, scope, { token: "old", fingerprint: "other", nowSeconds: then, leaseSeconds: 60 })).toBe(true);
    await completeIdempotencyKey(env.DB, scope, "old", { status: 201, headers: {}, body: "{}" }, then + DAY);
    expect(await findIdempotencyRecord(env.DB, scope, now())).toBeNull();
    const response = await idempotent("POST", "/v1/dataset", key, "expired-1", body([collectionPart({ name: "idem-expired" }), csvPart("a\n1\n")]));
    expect(response.status).toBe(201);
    expect(response.headers.get("idempotent-replayed")).toBeNull();
  });

  it("purgeExpiredIdempotencyRecords deletes expired records only", async () => {
    const key = await createKey(TEAM, "idem-purge");
    const old = { keyId: key.keyId, idempotencyKey: "purge-old" };
    const live = { keyId: key.keyId, idempotencyKey: "purge-live" };
    await reserveIdempotencyKey(env.DB, old, { token: "t1", fingerprint: "f", nowSeconds: now() - DAY, leaseSeconds: 60 });
    await reserveIdempotencyKey(env.DB, live, { token: "t2", fingerprint: "f", nowSeconds: now(), leaseSeconds: 600 });
    expect(await purgeExpiredIdempotencyRecords(env.DB, now())).toBeGreaterThanOrEqual(1);
    expect(await findIdempotencyRecord(env.DB, old, now() - DAY)).toBeNull();
    expect(await findIdempotencyRecord(env.DB, live, now())).toEqual({ state: "in_flight", fingerprint: "f" });
  });
});
