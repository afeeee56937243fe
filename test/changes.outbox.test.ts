// docs/changes.md and docs/storage-protocol.md "Change events": every write that commits writes
// exactly its event in the same batch, in the owning team's view and the public view; a write
// that is refused, or a replay, writes none.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../src/index.ts";
import { signRequest } from "../src/wire/sign.ts";
import { countingD1 } from "./helpers/d1-wrappers.ts";
import { beforeAll, describe, expect, it } from "vitest";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { ORIGIN, appendRows, collectionPart, createDataset, csvPart, expectProblem, multipart, send, write } from "./helpers/http.ts";

interface Row {
  type: string;
  public_type: string | null;
  team_id: string;
  version_id: string | null;
}

async function eventsOf(datasetId: string): Promise<Row[]> {
  const { results } = await env.DB.prepare("SELECT type, public_type, team_id, version_id FROM change_events WHERE dataset_id = ? ORDER BY seq")
    .bind(datasetId)
    .all<Row>();
  return results;
}

async function versionOf(response: Response): Promise<string> {
  const text = await response.text();
  expect(response.status, text).toBeLessThan(300);
  return (JSON.parse(text) as { version: string }).version;
}

let owner: TestKey;
let outsider: TestKey;

beforeAll(async () => {
  owner = await createKey("outbox-team", "outbox-owner");
  outsider = await createKey("outbox-other", "outbox-outsider");
});

describe("the outbox: one event per committed write", () => {
  it("create, append, PUT, flips and delete each write exactly their event", async () => {
    const created = await createDataset(owner, "a,b\n1,2\n", { name: "Outbox one" });
    expect(await eventsOf(created.id)).toEqual([{ type: "dataset.created", public_type: null, team_id: "outbox-team", version_id: created.version }]);

    const appended = await versionOf(await appendRows(owner, created.id, "3,4\n"));
    const updated = await versionOf(await write("PUT", `/v1/dataset/${created.id}`, owner, [collectionPart({ name: "Outbox renamed" })]));
    const published = await versionOf(await write("PUT", `/v1/dataset/${created.id}`, owner, [collectionPart({ visibility: "public" })]));
    const publicAppend = await versionOf(await appendRows(owner, created.id, "5,6\n"));
    const replaced = await versionOf(await write("PUT", `/v1/dataset/${created.id}`, owner, [csvPart("c\n7\n")]));
    const unpublished = await versionOf(await write("PUT", `/v1/dataset/${created.id}`, owner, [collectionPart({ visibility: "private" })]));
    const draft = await versionOf(await appendRows(owner, created.id, "8\n"));
    // An append that also makes the dataset public is told as its publication.
    const appendPublishes = await versionOf(await write("POST", `/v1/dataset/${created.id}`, owner, [collectionPart({ visibility: "public" }), csvPart("9\n")]));
    expect((await send("DELETE", `/v1/dataset/${created.id}`, { key: owner })).status).toBe(204);

    const team = "outbox-team";
    expect(await eventsOf(created.id)).toEqual([
      { type: "dataset.created", public_type: null, team_id: team, version_id: created.version },
      { type: "dataset.appended", public_type: null, team_id: team, version_id: appended },
      { type: "dataset.updated", public_type: null, team_id: team, version_id: updated },
      { type: "dataset.published", public_type: "dataset.published", team_id: team, version_id: published },
      { type: "dataset.appended", public_type: "dataset.appended", team_id: team, version_id: publicAppend },
      { type: "dataset.updated", public_type: "dataset.updated", team_id: team, version_id: replaced },
      { type: "dataset.unpublished", public_type: "dataset.withdrawn", team_id: team, version_id: unpublished },
      { type: "dataset.appended", public_type: null, team_id: team, version_id: draft },
      { type: "dataset.published", public_type: "dataset.published", team_id: team, version_id: appendPublishes },
      { type: "dataset.deleted", public_type: "dataset.withdrawn", team_id: team, version_id: null },
    ]);
  });

  it("a public create is public at once; deleting a private dataset tells outsiders nothing", async () => {
    const open = await createDataset(owner, "a\n1\n", { name: "Outbox public", visibility: "public" });
    expect(await eventsOf(open.id)).toEqual([{ type: "dataset.created", public_type: "dataset.created", team_id: "outbox-team", version_id: open.version }]);

    const closed = await createDataset(owner, "a\n1\n", { name: "Outbox private" });
    expect((await send("DELETE", `/v1/dataset/${closed.id}`, { key: owner })).status).toBe(204);
    expect((await eventsOf(closed.id)).map((e) => [e.type, e.public_type])).toEqual([
      ["dataset.created", null],
      ["dataset.deleted", null],
    ]);
  });

  it("a refused write, a replay and a second delete write no event", async () => {
    const dataset = await createDataset(owner, "a,b\n1,2\n", { name: "Outbox refusals", visibility: "public" });
    const before = await eventsOf(dataset.id);

    await expectProblem(await appendRows(owner, dataset.id, "1,2,3\n"), 422, "column_count_mismatch");
    await expectProblem(await appendRows(owner, dataset.id, "3,4\n", { "If-Match": `"${crypto.randomUUID()}"` }), 412, "precondition_failed");
    await expectProblem(await write("PUT", `/v1/dataset/${dataset.id}`, outsider, [collectionPart({ name: "Taken" })]), 403, "forbidden");
    await expectProblem(await write("PUT", `/v1/dataset/${dataset.id}`, owner, [collectionPart({ name: "" })]), 400, "invalid_request");
    await expectProblem(await send("DELETE", `/v1/dataset/${dataset.id}`, { key: outsider }), 403, "forbidden");
    await expectProblem(await write("POST", "/v1/dataset", owner, [collectionPart({ name: "No content" })]), 400, "invalid_request");
    expect(await eventsOf(dataset.id)).toEqual(before);

    const { body, contentType } = multipart([csvPart("5,6\n")]);
    const headers = { "Idempotency-Key": crypto.randomUUID(), "Content-Type": contentType };
    const first = await send("POST", `/v1/dataset/${dataset.id}`, { key: owner, body, headers });
    expect(first.status).toBe(201);
    const replay = await send("POST", `/v1/dataset/${dataset.id}`, { key: owner, body, headers });
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect((await eventsOf(dataset.id)).length).toBe(before.length + 1);

    expect((await send("DELETE", `/v1/dataset/${dataset.id}`, { key: owner })).status).toBe(204);
    expect((await send("DELETE", `/v1/dataset/${dataset.id}`, { key: owner })).status).toBe(404);
    expect((await eventsOf(dataset.id)).filter((e) => e.type === "dataset.deleted")).toHaveLength(1);
  });

  it("costs a commit no D1 round trip: the event rides in the batch that inserts the version", async () => {
    const dataset = await createDataset(owner, "a\n1\n", { name: "Outbox trips" });
    const writes = [
      () => multipart([collectionPart({ name: "Outbox trips renamed" })]),
      () => multipart([csvPart("2\n")]),
    ];
    for (const [i, parts] of writes.entries()) {
      const { body, contentType } = parts();
      const url = `${ORIGIN}/v1/dataset/${dataset.id}`;
      const method = i === 0 ? "PUT" : "POST";
      const headers = await signRequest({ method, url, headers: new Headers({ "Content-Type": contentType }), body }, { keyId: owner.keyId, secret: owner.secret });
      const counter = countingD1(env.DB);
      const ctx = createExecutionContext();
      // Without the sequencer binding an append commits in the request, where the counter sees it.
      const response = await worker.fetch(new Request(url, { method, headers, body }), { ...env, DB: counter.db, APPEND_SEQUENCER: undefined }, ctx);
      expect(response.status, await response.text()).toBeLessThan(300);
      await waitOnExecutionContext(ctx);
      const commit = counter.queries.findIndex((q) => q.sql.includes("INSERT INTO versions"));
      const inserting = counter.queries.filter((q) => q.sql.includes("INSERT INTO change_events"));
      expect(inserting, method).toHaveLength(1);
      expect(inserting[0]!.sql).toMatch(/^BATCH .*INSERT INTO versions.*INSERT INTO change_events/s);
      // Nothing reads the outbox on the way to the commit; the webhook drain reads it after the answer.
      expect(counter.queries.slice(0, commit).filter((q) => q.sql.includes("change_events"))).toEqual([]);
    }
  });

  it("an event never outlives a batch that failed", async () => {
    const dataset = await createDataset(owner, "a\n1\n", { name: "Outbox batch" });
    // A batch that fails as a whole leaves no event: a version whose seq is taken is refused by
    // UNIQUE (dataset_id, seq), and the event statement beside it is rolled back with it.
    const { results } = await env.DB.prepare("SELECT seq FROM versions WHERE dataset_id = ?").bind(dataset.id).all<{ seq: number }>();
    expect(results).toHaveLength(1);
    const count = async () => (await env.DB.prepare("SELECT COUNT(*) AS n FROM change_events").first<{ n: number }>())!.n;
    const before = await count();
    await expect(
      env.DB.batch([
        env.DB.prepare("INSERT INTO change_events (type, public_type, dataset_id, team_id, version_id, occurred) VALUES ('dataset.appended', NULL, ?, 'outbox-team', 'x', 'now')").bind(dataset.id),
        env.DB.prepare("INSERT INTO versions (id, dataset_id, seq, created, name, visibility, properties_id, file_name, header_id, row_count, raw_bytes, crc32, eol, ends_with_newline) SELECT 'dup', dataset_id, seq, created, name, visibility, properties_id, file_name, header_id, row_count, raw_bytes, crc32, eol, ends_with_newline FROM versions WHERE dataset_id = ?").bind(dataset.id),
      ]),
    ).rejects.toThrow(/UNIQUE/);
    expect(await count()).toBe(before);
  });
});
