// Resumable uploads (draft-ietf-httpbis-resumable-upload-15 subset, README "Resumable uploads"):
// content sent in chunks, cut anywhere (inside records, quoted fields, UTF-8 sequences), ends
// byte-identical to the same content sent in one request.
import { describe, expect, it } from "vitest";
import { createDataset, download, gunzipText, send } from "./helpers/http.ts";
import { createKey } from "./helpers/keys.ts";
import { startUpload, uploadInChunks } from "./helpers/uploads.ts";

const TEAM = "team-resumable";

describe("resumable upload", () => {
  it("creates a dataset from chunks cut inside records", async () => {
    const key = await createKey(TEAM, "alice");
    const csv = 'id,name,note\n1,Ann,"multi\nline"\n2,Bob,plain\n3,Café,"quote ""x"""\n';
    const bytes = new TextEncoder().encode(csv);
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Chunked" }, fileName: "people.csv" });
    expect(location).toMatch(/^\/v1\/uploads\//);
    const response = await uploadInChunks(key, location, bytes, [5, 17, 30, 47]);
    expect(response.status).toBe(201);
    const created = (await response.json()) as { id: string; version: string; source: string };
    expect(response.headers.get("upload-complete")).toBe("?1");
    const gz = await download(created.source, key);
    expect(await gunzipText(gz)).toBe(csv);
    const one = await createDataset(key, csv, { name: "One" }, "people.csv");
    const oneText = await gunzipText(await download(one.source, key));
    expect(oneText).toBe(csv);
    const rows = await (await send("GET", `/v1/dataset/${created.id}/latest/rows`, { key })).json();
    const oneRows = await (await send("GET", `/v1/dataset/${one.id}/latest/rows`, { key })).json();
    expect(rows).toEqual(oneRows);
  });
});
