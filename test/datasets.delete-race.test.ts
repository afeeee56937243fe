// A write whose upload is under way when a concurrent DELETE commits gets 404, not a 500, and
// leaves nothing behind but an intent the clean-up collects.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { signRequest } from "../src/wire/sign.ts";
import worker from "../src/index.ts";
import { ORIGIN, collectionPart, createDataset, csvPart, expectProblem, multipart, send } from "./helpers/http.ts";
import { createKey } from "./helpers/keys.ts";
import { pendingRows, untrackedObjects } from "./helpers/storage.ts";

describe("write racing a delete", () => {
  it("the losing write is not_found", async () => {
    const key = await createKey("race-delete", "racer");
    const created = await createDataset(key, "a\n1\n");
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
