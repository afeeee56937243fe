// A resumable upload's length (draft-ietf-httpbis-resumable-upload-15 §4.1.3, docs/resumable-uploads.md):
// `Upload-Length` on the creation or any chunk, or `Content-Length` on the last one.
// Indications must agree; the offset may not pass a known length, nor the upload end short of
// it. And OPTIONS tells a client where uploads can be created, and their limits.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { expectProblem, send } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { signedPatch, startUpload, startUploadResponse } from "./helpers/uploads.ts";

const TEAM = "team-upload-length";
const encoder = new TextEncoder();

function patch(key: TestKey, location: string, offset: number, chunk: string, complete: boolean, headers: Record<string, string> = {}) {
  return send("PATCH", location, {
    key,
    body: encoder.encode(chunk),
    headers: { "Content-Type": "application/partial-upload", "Upload-Offset": String(offset), "Upload-Complete": complete ? "?1" : "?0", ...headers },
  });
}

async function head(key: TestKey, location: string): Promise<Response> {
  return send("HEAD", location, { key });
}

describe("resumable upload: its length", () => {
  it("records Upload-Length from the creation, reports it on HEAD, and commits when the content reaches it", async () => {
    const key = await createKey(TEAM, "known");
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Known" } }, { "Upload-Length": "12" });
    expect((await head(key, location)).headers.get("upload-length")).toBe("12");
    expect((await patch(key, location, 0, "a,b\n1,", false)).status).toBe(204);
    // The same length again agrees.
    const last = await patch(key, location, 6, "2\n3,4\n", true, { "Upload-Length": "12" });
    expect(last.status).toBe(201);
  });

  it("learns the length when a chunk first says it, and refuses a later chunk that says another", async () => {
    const key = await createKey(TEAM, "later");
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Later" } });
    expect((await head(key, location)).headers.get("upload-length")).toBeNull();
    expect((await patch(key, location, 0, "a,b\n", false, { "Upload-Length": "8" })).status).toBe(204);
    expect((await head(key, location)).headers.get("upload-length")).toBe("8");
    const body = await expectProblem(await patch(key, location, 4, "1,2\n", false, { "Upload-Length": "9" }), 400, "inconsistent_upload_length");
    expect(body.code).toBe("inconsistent_upload_length");
    // Refused before anything was appended: the upload goes on.
    expect((await head(key, location)).headers.get("upload-offset")).toBe("4");
    expect((await patch(key, location, 4, "1,2\n", true)).status).toBe(201);
  });

  it("fails the upload when a chunk goes past its length", async () => {
    const key = await createKey(TEAM, "past");
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Past" } }, { "Upload-Length": "6" });
    await expectProblem(await patch(key, location, 0, "a,b\n1,2\n", false), 400, "inconsistent_upload_length");
    // The upload resource is invalid from then on.
    expect((await head(key, location)).status).toBe(400);
    await expectProblem(await patch(key, location, 0, "a,b\n", false), 400, "inconsistent_upload_length");
    expect((await send("DELETE", location, { key })).status).toBe(204);
  });

  it("refuses a last chunk whose Content-Length ends the upload short of its length; the upload goes on", async () => {
    const key = await createKey(TEAM, "short");
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Short" } }, { "Upload-Length": "12" });
    await expectProblem(await patch(key, location, 0, "a,b\n1,2\n", true), 400, "inconsistent_upload_length");
    expect((await head(key, location)).headers.get("upload-offset")).toBe("0");
    expect((await patch(key, location, 0, "a,b\n1,2\n3,4\n", true)).status).toBe(201);
  });

  it("fails the upload when a last chunk of unknown length (chunked) ends short of it", async () => {
    const key = await createKey(TEAM, "chunked");
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Chunked" } }, { "Upload-Length": "100" });
    const bytes = encoder.encode("a,b\n1,2\n");
    // A stream of unknown length: no Content-Length, so only the bytes themselves tell.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    });
    const response = await exports.default.fetch(await signedPatch(key, location, 0, bytes, true, body));
    await expectProblem(response, 400, "inconsistent_upload_length");
    expect((await head(key, location)).status).toBe(400);
  });

  it("refuses a creation whose Upload-Length is over max-size, with Upload-Limit", async () => {
    const key = await createKey(TEAM, "huge");
    const response = await startUploadResponse(key, "POST", "/v1/dataset", { collection: { name: "Huge" } }, { "Upload-Length": String(6 * 1024 ** 3) });
    await expectProblem(response, 413, "payload_too_large");
    expect(response.headers.get("upload-limit")).toMatch(/max-size=5368709120/);
  });

  it("refuses a chunk whose Upload-Length is over max-size with 413 and the limit, changing nothing", async () => {
    const key = await createKey(TEAM, "huge-patch");
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Huge patch" } });
    expect((await patch(key, location, 0, "a,b\n", false)).status).toBe(204);
    for (const complete of [false, true]) {
      const response = await patch(key, location, 4, "1,2\n", complete, { "Upload-Length": "999999999999999" });
      const problem = await expectProblem(response, 413, "payload_too_large");
      expect(problem.limit).toBe("MAX_RESUMABLE_BYTES");
      expect(problem.max).toBe(5368709120);
      expect(response.headers.get("upload-limit")).toMatch(/max-size=5368709120/);
    }
    // Nothing changed: no length recorded, the offset where it was, and the upload goes on.
    const state = await head(key, location);
    expect(state.status).toBe(204);
    expect(state.headers.get("upload-length")).toBeNull();
    expect(state.headers.get("upload-offset")).toBe("4");
    expect((await patch(key, location, 4, "1,2\n", true)).status).toBe(201);
  });

  it("ignores an Upload-Length that is not a non-negative integer, as the draft says", async () => {
    const key = await createKey(TEAM, "ignored");
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Ignored" } }, { "Upload-Length": "-5" });
    expect((await head(key, location)).headers.get("upload-length")).toBeNull();
    expect((await patch(key, location, 0, "a\n1\n", true, { "Upload-Length": "4.0" })).status).toBe(201);
  });
});

describe("OPTIONS on where uploads are created", () => {
  it("names application/partial-upload in Accept-Patch and gives the limits", async () => {
    for (const path of ["/v1/dataset", "/v1/dataset/0b6a6f5e-3c8e-4f4e-9a37-6c0f4b1c2d3e"]) {
      const response = await send("OPTIONS", path);
      expect(response.status).toBeLessThan(300);
      expect(response.headers.get("accept-patch")).toContain("application/partial-upload");
      expect(response.headers.get("upload-limit")).toMatch(/max-size=\d+, max-append-size=\d+/);
    }
    const elsewhere = await send("OPTIONS", "/v1/search?q=x");
    expect(elsewhere.headers.get("accept-patch")).toBeNull();
  });
});
