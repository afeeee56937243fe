// A write whose upload is under way when a concurrent DELETE commits gets 404, not a 500, and
// leaves nothing behind but an intent the clean-up collects. The create's work after its commit
// is recorded, not run: its Parquet twin, built at once on the twins' queue, would otherwise add
// a 'deleted' row for its part or not, as the race's timing falls.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { signRequest } from "../src/wire/sign.ts";
import worker from "../src/index.ts";
import { ORIGIN, collectionPart, csvPart, expectProblem, multipart, send } from "./helpers/http.ts";
import { createKey } from "./helpers/keys.ts";
import { pendingRows, recordingAfterCommit, signedFetch, untrackedObjects } from "./helpers/storage.ts";

describe("write racing a delete", () => {
  it("the losing write is not_found", async () => {
    const key = await createKey("race-delete", "racer");
    const recorder = recordingAfterCommit();
    const response = await signedFetch(recorder.env, "POST", "/v1/dataset", key, { parts: [collectionPart({ name: "Test" }), csvPart("a\n1\n", "data.csv")] });
    expect(response.status).toBe(201);
    const created = (await response.json()) as { id: string };
    expect(recorder.sent).toEqual([{ kind: "parquet", datasetId: created.id, versionId: expect.any(String) }]);
    const url = `${ORIGIN}/v1/dataset/${created.id}`;
    const { body, contentType } = multipart([csvPart("2\n"), collectionPart({ name: "renamed" })]);
    const headers = await signRequest({ method: "POST", url, headers: { "Content-Type": contentType }, body }, key);
    let sendRest: () => void = () => {};
    const rest = new Promise<void>((resolve) => (sendRest = resolve));
    const split = new TextDecoder().decode(body).indexOf("\r\n\r\n") + 4;
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(body.subarray(0, split));
        await rest;
        controller.enqueue(body.subarray(split));
        controller.close();
      },
    });
    const ctx = { waitUntil: () => {}, passThroughOnException: () => {}, props: {} } as unknown as ExecutionContext;
    const pending = worker.fetch(new Request(url, { method: "POST", headers, body: stream, duplex: "half" } as RequestInit), env, ctx);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await send("DELETE", `/v1/dataset/${created.id}`, { key })).status).toBe(204);
    sendRest();
    await expectProblem(await pending, 404, "not_found");
    expect((await send("GET", `/v1/dataset/${created.id}`, { key })).status).toBe(404);
    expect((await pendingRows(created.id)).map((r) => r.reason).sort()).toEqual(["deleted", "upload"]);
    expect(await untrackedObjects(created.id)).toEqual([]);
  });
});
