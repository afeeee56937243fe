// Issue 27, item 2 (RFC 9421 §7.2.1, insufficient coverage): every field that decides what a
// write does is covered by its signature whenever it is sent. A field added, removed or altered
// after signing fails with 401 signature_invalid, naming it when it was left out.
import { describe, expect, it } from "vitest";
import { DECIDING_FIELDS, requiredComponents } from "../src/wire/verify.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { appendRows, collectionPart, createDataset, csvPart, expectProblem, multipart, ORIGIN, send, write } from "./helpers/http.ts";
import { patchChunk, startUpload, uploadOffset } from "./helpers/uploads.ts";

const CSV = "a,b\n1,2\n";
const encoder = new TextEncoder();

async function versionOf(key: TestKey, id: string): Promise<string> {
  const response = await send("GET", `/v1/dataset/${id}`, { key });
  return ((await response.json()) as { version: string }).version;
}

describe("what decides a write is signed", () => {
  it("a PATCH signed with Upload-Complete: ?0 and delivered with ?1 commits nothing", async () => {
    const key = await createKey("team-cover", "alice");
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Half", visibility: "public" } });
    const response = await send("PATCH", location, {
      key,
      body: encoder.encode("a,b\n1,2\n"),
      headers: { "Content-Type": "application/partial-upload", "Upload-Offset": "0", "Upload-Complete": "?0" },
      tamper: (headers) => headers.set("Upload-Complete", "?1"),
    });
    await expectProblem(response, 401, "signature_invalid");
    expect(await uploadOffset(key, location)).toBe(0);
    const list = await send("GET", "/v1/dataset", { key });
    expect(((await list.json()) as { results: unknown[] }).results).toEqual([]);
  });

  it("a PUT signed with a stale If-Match and delivered without it is refused, not applied", async () => {
    const key = await createKey("team-cover", "bob");
    const created = await createDataset(key, CSV, { name: "Guarded" });
    await appendRows(key, created.id, "3,4\n");
    const latest = await versionOf(key, created.id);
    const { body, contentType } = multipart([collectionPart({ name: "Renamed" })]);
    const response = await send("PUT", `/v1/dataset/${created.id}`, {
      key,
      body,
      headers: { "Content-Type": contentType, "If-Match": `"${created.version}"` },
      tamper: (headers) => headers.delete("If-Match"),
    });
    await expectProblem(response, 401, "signature_invalid");
    expect(await versionOf(key, created.id)).toBe(latest);
  });

  it("every deciding field: added after signing → 401 naming it; removed or altered → 401", async () => {
    const key = await createKey("team-cover", "carol");
    const created = await createDataset(key, CSV, { name: "Fields" });
    const location = await startUpload(key, "POST", `/v1/dataset/${created.id}`, {});
    const values: Record<(typeof DECIDING_FIELDS)[number], [string, string]> = {
      "content-type": ["application/partial-upload", "application/octet-stream"],
      "if-match": [`"${created.version}"`, '"00000000-0000-4000-8000-000000000000"'],
      "idempotency-key": ["cover-1", "cover-2"],
      "upload-complete": ["?0", "?1"],
      "upload-offset": ["0", "4"],
      "upload-length": ["4", "400"],
    };
    for (const field of DECIDING_FIELDS) {
      const [value, other] = values[field];
      const base = { "Content-Type": "application/partial-upload", "Upload-Offset": "0", "Upload-Complete": "?0" } as Record<string, string>;
      const signedWith = { ...base, [field]: value };
      const unsigned = { ...base };
      delete (unsigned as Record<string, string>)[field === "content-type" ? "Content-Type" : field === "upload-offset" ? "Upload-Offset" : field === "upload-complete" ? "Upload-Complete" : field];
      const bodyBytes = encoder.encode("5,6\n");

      const added = await send("PATCH", location, { key, body: bodyBytes, headers: unsigned, tamper: (h) => h.set(field, value) });
      const problem = await expectProblem(added, 401, "signature_invalid");
      expect(problem.component, field).toBe(field);
      expect(String(problem.detail)).toContain(`"${field}"`);

      const removed = await send("PATCH", location, { key, body: bodyBytes, headers: signedWith, tamper: (h) => h.delete(field) });
      await expectProblem(removed, 401, "signature_invalid");

      const altered = await send("PATCH", location, { key, body: bodyBytes, headers: signedWith, tamper: (h) => h.set(field, other) });
      await expectProblem(altered, 401, "signature_invalid");
    }
    expect(await uploadOffset(key, location)).toBe(0);
    expect(await versionOf(key, created.id)).toBe(created.version);
  });

  it("a multipart create whose boundary is not signed is refused, naming content-type", async () => {
    const key = await createKey("team-cover", "dave");
    const { body, contentType } = multipart([collectionPart({ name: "Boundary" }), csvPart(CSV)]);
    const response = await send("POST", "/v1/dataset", { key, body, tamper: (headers) => headers.set("Content-Type", contentType) });
    const problem = await expectProblem(response, 401, "signature_invalid");
    expect(problem.component).toBe("content-type");
  });

  it("the signer covers exactly the deciding fields a request carries", () => {
    const url = new URL(`${ORIGIN}/v1/uploads/x`);
    expect(requiredComponents(url, false, new Headers())).toEqual(["@method", "@authority", "@path"]);
    const headers = new Headers({ "Upload-Offset": "0", "Upload-Complete": "?1", "Content-Type": "application/partial-upload", Accept: "*/*" });
    expect(requiredComponents(url, true, headers)).toEqual(["@method", "@authority", "@path", "content-digest", "content-type", "upload-complete", "upload-offset"]);
  });

  it("requests signed the normal way, with all these fields, still succeed", async () => {
    const key = await createKey("team-cover", "erin");
    const created = await createDataset(key, CSV, { name: "Normal" });
    const appended = await appendRows(key, created.id, "3,4\n", { "If-Match": `"${created.version}"`, "Idempotency-Key": "normal-1" });
    expect(appended.status).toBe(201);
    const location = await startUpload(key, "POST", `/v1/dataset/${created.id}`, {});
    const last = await patchChunk(key, location, 0, "5,6\n", true);
    expect(last.status).toBe(201);
    await last.body?.cancel();
    const put = await write("PUT", `/v1/dataset/${created.id}`, key, [collectionPart({ name: "Still normal" })]);
    expect(put.status).toBe(200);
    await put.body?.cancel();
  });
});
