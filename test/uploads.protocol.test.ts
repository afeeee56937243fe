// The resumable-upload protocol (draft-ietf-httpbis-resumable-upload-15 §4, docs/resumable-uploads.md):
// offsets, concurrent appends, a chunk dropped mid-body, a CSV error in a later
// chunk, cancellation, expiry by the scheduled clean-up, and who may touch an upload.
import { createScheduledController } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../src/index.ts";
import { expectProblem, send } from "./helpers/http.ts";
import { createKey } from "./helpers/keys.ts";
import { objectExists, TIMINGS } from "./helpers/storage.ts";
import { patchChunk, signedPatch, startUpload, startUploadResponse, uploadOffset } from "./helpers/uploads.ts";

const TEAM = "team-upload-protocol";
const encoder = new TextEncoder();

/** The objects the upload lists as its segments (migrations/0017). */
async function uploadKeys(location: string): Promise<string[]> {
  const { results } = await env.DB.prepare("SELECT key FROM upload_segments WHERE upload_id = ?1 ORDER BY position").bind(location.split("/").pop()).all<{ key: string }>();
  return results.map((row) => row.key);
}

describe("resumable upload: protocol", () => {
  it("announces its limits and answers HEAD with the offset, not cached", async () => {
    const key = await createKey(TEAM, "limits");
    const response = await startUploadResponse(key, "POST", "/v1/dataset", { collection: { name: "L" } });
    expect(response.status).toBe(201);
    expect(response.headers.get("upload-limit")).toMatch(/max-size=5368709120, max-append-size=\d+, min-append-size=\d+, max-age=\d+/);
    const location = response.headers.get("location")!;
    expect((await patchChunk(key, location, 0, "a,b\n1,", false)).status).toBe(204);
    const head = await send("HEAD", location, { key });
    expect(head.status).toBe(204);
    expect(head.headers.get("upload-offset")).toBe("6");
    expect(head.headers.get("upload-complete")).toBe("?0");
    expect(head.headers.get("cache-control")).toBe("no-store");
  });

  it("refuses a chunk at the wrong offset with 409 and the right offset", async () => {
    const key = await createKey(TEAM, "offsets");
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "O" } });
    expect((await patchChunk(key, location, 0, "a,b\n", false)).status).toBe(204);
    for (const wrong of [0, 2, 10]) {
      const response = await patchChunk(key, location, wrong, "1,2\n", false);
      expect(response.headers.get("upload-offset")).toBe("4");
      const body = await expectProblem(response, 409, "mismatching_upload_offset");
      expect(body.offset).toBe(4);
    }
    expect(await uploadOffset(key, location)).toBe(4);
    expect((await patchChunk(key, location, 4, "1,2\n", true)).status).toBe(201);
  });

  it("lands only one of two concurrent chunks at the same offset", async () => {
    const key = await createKey(TEAM, "race");
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Race" } });
    const [first, second] = await Promise.all([patchChunk(key, location, 0, "a,b\n1,1\n", false), patchChunk(key, location, 0, "a,b\n2,2\n", false)]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([204, 409]);
    const loser = first.status === 409 ? first : second;
    await expectProblem(loser, 409, "mismatching_upload_offset");
    expect(await uploadOffset(key, location)).toBe(8);
    const done = await patchChunk(key, location, 8, "3,3\n", true);
    expect(done.status).toBe(201);
    const { id } = (await done.json()) as { id: string };
    const rows = (await (await send("GET", `/v1/dataset/${id}/latest/rows`, { key })).json()) as { rows: string[][] };
    expect(rows.rows).toHaveLength(2);
    expect(rows.rows[1]).toEqual([3, 3]);
  });

  it("keeps the offset when a chunk's connection drops mid-body, and resumes from HEAD", async () => {
    const key = await createKey(TEAM, "drop");
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Dropped" } });
    expect((await patchChunk(key, location, 0, "a,b\n1,x\n", false)).status).toBe(204);
    const chunk = encoder.encode("2,y\n3,z\n4,w\n");
    const broken = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(chunk.subarray(0, 6));
        controller.error(new Error("connection reset"));
      },
    });
    const dropped = await exports.default
      .fetch(await signedPatch(key, location, 8, chunk, false, broken))
      .then((r) => r.status)
      .catch(() => "dropped");
    expect(dropped === "dropped" || (typeof dropped === "number" && dropped >= 400)).toBe(true);
    expect(await uploadOffset(key, location)).toBe(8);
    expect((await patchChunk(key, location, 8, chunk, true)).status).toBe(201);
  });

  it("fails the upload on a CSV error in chunk 3 with the row number in the whole file; DELETE still works", async () => {
    const key = await createKey(TEAM, "bad");
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Bad" } });
    const chunks = ["a,b\n1,2\n3,", "4\n5,6\n7,8\n", "9,10\n11,12,13\n", "14,15\n"];
    let offset = 0;
    for (const chunk of chunks.slice(0, 2)) {
      expect((await patchChunk(key, location, offset, chunk, false)).status).toBe(204);
      offset += encoder.encode(chunk).length;
    }
    const failing = await patchChunk(key, location, offset, chunks[2]!, false);
    // Not the last chunk: the upload was never complete.
    expect(failing.headers.get("upload-complete")).toBeNull();
    const body = await expectProblem(failing, 422, "invalid_csv");
    // a,b is row 1; 1,2 row 2; 3,4 row 3; 5,6 row 4; 7,8 row 5; 9,10 row 6; 11,12,13 row 7.
    expect(body.row).toBe(7);
    expect(body.expected).toBe(2);
    expect(body.found).toBe(3);
    // The upload has failed: later requests get the same problem.
    await expectProblem(await patchChunk(key, location, offset, chunks[3]!, true), 422, "invalid_csv");
    expect((await send("HEAD", location, { key })).status).toBe(422);
    const keys = await uploadKeys(location);
    expect(keys.length).toBeGreaterThan(0);
    expect((await send("DELETE", location, { key })).status).toBe(204);
    expect((await send("HEAD", location, { key })).status).toBe(404);
    // The clean-up, the only deleter of objects, removes the cancelled upload's chunks.
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now() + 1000, cron: "*/30 * * * *" }), env);
    for (const k of keys) expect(await objectExists(k)).toBe(false);
  });

  it("answers the last chunk again when it is re-sent, and refuses more content after it", async () => {
    const key = await createKey(TEAM, "again");
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Again" } });
    const first = await patchChunk(key, location, 0, "a\n1\n", true);
    expect(first.status).toBe(201);
    const again = await patchChunk(key, location, 4, "", true);
    expect(again.status).toBe(201);
    expect(await again.json()).toEqual(await first.json());
    // Content for a complete upload is an inconsistent length (draft §4.4.2); an empty chunk
    // elsewhere than the final offset is refused as complete.
    await expectProblem(await patchChunk(key, location, 4, "2\n", false), 400, "inconsistent_upload_length");
    await expectProblem(await patchChunk(key, location, 2, "", true), 400, "completed_upload");
    const head = await send("HEAD", location, { key });
    expect(head.headers.get("upload-complete")).toBe("?1");
    expect(head.headers.get("upload-length")).toBe("4");
  });

  it("refuses unsigned requests and other teams' keys", async () => {
    const owner = await createKey(TEAM, "owner");
    const stranger = await createKey("team-stranger", "eve");
    await expectProblem(await startUploadResponse(undefined, "POST", "/v1/dataset", { collection: { name: "U" } }), 401, "signature_required");
    const location = await startUpload(owner, "POST", "/v1/dataset", { collection: { name: "Mine" } });
    await expectProblem(await patchChunk(undefined, location, 0, "a\n", false), 401, "signature_required");
    expect((await send("HEAD", location)).status).toBe(401);
    await expectProblem(await patchChunk(stranger, location, 0, "a\n", false), 404, "not_found");
    expect((await send("HEAD", location, { key: stranger })).status).toBe(404);
    await expectProblem(await send("DELETE", location, { key: stranger }), 404, "not_found");
    // A signed chunk whose bytes were changed after signing fails its digest.
    const tampered = await send("PATCH", location, {
      key: owner,
      body: encoder.encode("a\n"),
      headers: { "Content-Type": "application/partial-upload", "Upload-Offset": "0", "Upload-Complete": "?0" },
      tamper: (headers) => headers.set("content-digest", "sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:"),
    });
    expect(tampered.status).toBe(401);
    expect(await uploadOffset(owner, location)).toBe(0);
    // Another team cannot start an upload onto a private dataset either.
    const created = await (await patchChunk(owner, location, 0, "a\n1\n", true)).json() as { id: string };
    await expectProblem(await startUploadResponse(stranger, "POST", `/v1/dataset/${created.id}`, {}), 404, "not_found");
  });

  it("expires an idle upload: the clean-up removes its chunks and its state", async () => {
    const key = await createKey(TEAM, "idle");
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Idle" } });
    expect((await patchChunk(key, location, 0, "a,b\n1,2\n", false)).status).toBe(204);
    const keys = await uploadKeys(location);
    expect(keys).toHaveLength(1);
    // Past the write grace but before the upload's expiry: its chunk is kept.
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now() + TIMINGS.writeGraceMs + 60_000, cron: "*/30 * * * *" }), env);
    expect(await objectExists(keys[0]!)).toBe(true);
    const pinned = Date.now() + 24 * 60 * 60 * 1000 + 60_000;
    await worker.scheduled(createScheduledController({ scheduledTime: pinned, cron: "*/30 * * * *" }), env);
    expect(await objectExists(keys[0]!)).toBe(false);
    expect(await uploadKeys(location)).toEqual([]);
    expect((await send("HEAD", location, { key })).status).toBe(404);
  });

  it("refuses a chunk that is not application/partial-upload and malformed upload headers", async () => {
    const key = await createKey(TEAM, "types");
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "T" } });
    const wrongType = await send("PATCH", location, { key, body: encoder.encode("a\n"), headers: { "Content-Type": "text/csv", "Upload-Offset": "0", "Upload-Complete": "?0" } });
    await expectProblem(wrongType, 415, "unsupported_media_type");
    const noOffset = await send("PATCH", location, { key, body: encoder.encode("a\n"), headers: { "Content-Type": "application/partial-upload", "Upload-Complete": "?0" } });
    await expectProblem(noOffset, 400, "invalid_request");
    await expectProblem(await startUploadResponse(key, "POST", "/v1/dataset", { collection: { visiblity: "public" } } as never), 400, "invalid_request");
    await expectProblem(await startUploadResponse(key, "POST", "/v1/dataset", {}), 400, "invalid_request");
  });
});
