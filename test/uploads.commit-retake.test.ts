// The last chunk's commit when its worker never finishes it (docs/resumable-uploads.md, "The
// commit"): the commit settles the upload in its own batch, so an upload still "being
// committed" after the lease was never committed; the last chunk sent again takes the commit
// over, and should the first worker only have been slow, its commit is refused as a whole.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { COMMIT_LEASE_MS } from "../src/uploads/completion.ts";
import worker from "../src/index.ts";
import { createDataset, download, expectProblem, gunzipText, send } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { wrapBinding } from "./helpers/storage.ts";
import { patchChunk, signedPatch, startUpload } from "./helpers/uploads.ts";

const TEAM = "team-commit-retake";
const encoder = new TextEncoder();

/**
 * The real D1, except that a batch of more than five statements (a version's commit; a chunk's
 * landing is five) waits until `release()`: the commit's worker is stuck, or dead, right there.
 */
function stuckCommits() {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  let reached: () => void = () => {};
  const atGate = new Promise<void>((resolve) => (reached = resolve));
  const DB = wrapBinding(env.DB, {
    prepare: (sql: string) => env.DB.prepare(sql),
    batch: async (statements: D1PreparedStatement[]) => {
      if (statements.length > 5) {
        reached();
        await gate;
      }
      return env.DB.batch(statements);
    },
  });
  return { DB, release, atGate };
}

/** Moves the upload's last activity back: the time since its last chunk landed, as if `ms` had passed. */
async function age(location: string, ms: number): Promise<void> {
  await env.DB.prepare("UPDATE uploads SET expires_at = expires_at - ?2 WHERE id = ?1").bind(location.split("/").pop(), ms).run();
}

async function csvOf(key: TestKey, id: string): Promise<string> {
  const record = await send("GET", `/v1/dataset/${id}/latest`, { key });
  const source = /<([^>]+)>; rel="enclosure"/.exec(record.headers.get("link") ?? "")?.[1];
  return gunzipText(await download(source!, key));
}

async function versionsOf(key: TestKey, id: string): Promise<number> {
  const listed = (await (await send("GET", `/v1/dataset/${id}/versions`, { key })).json()) as { results: unknown[] };
  return listed.results.length;
}

describe("resumable upload: a commit its worker did not finish", () => {
  it("is taken over by the last chunk sent again after the lease, and a slow first commit is refused whole", async () => {
    const key = await createKey(TEAM, "retake");
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Retaken" }, fileName: "r.csv" });
    expect((await patchChunk(key, location, 0, "id,city\n1,Oslo\n", false)).status).toBe(204);
    const last = encoder.encode("2,Lima\n3,Kyiv\n");
    const final = 15 + last.length;

    // The last chunk lands, then its commit hangs before its batch reaches D1.
    const stuck = stuckCommits();
    const ctx = createExecutionContext();
    const first = worker.fetch(await signedPatch(key, location, 15, last, true), { ...env, DB: stuck.DB }, ctx);
    await stuck.atGate;
    const head = await send("HEAD", location, { key });
    expect(head.headers.get("upload-complete")).toBe("?1");
    expect(head.headers.get("upload-offset")).toBe(String(final));

    // Within the lease the commit may still be running: 409, ask again shortly.
    await expectProblem(await patchChunk(key, location, final, new Uint8Array(0), true), 409, "conflict");
    // More content for a complete upload is an inconsistent length, lease or not.
    await age(location, COMMIT_LEASE_MS + 1000);
    await expectProblem(await patchChunk(key, location, final, "4,Rome\n", true), 400, "inconsistent_upload_length");

    // After the lease, the empty last chunk commits the upload from its stored scan.
    const retaken = await patchChunk(key, location, final, new Uint8Array(0), true);
    expect(retaken.status).toBe(201);
    const created = (await retaken.json()) as { id: string };
    expect(await csvOf(key, created.id)).toBe("id,city\n1,Oslo\n2,Lima\n3,Kyiv\n");

    // The first worker was only slow: its commit reaches D1 now, is refused as a whole, and it
    // answers what the commit that landed answered.
    stuck.release();
    const slow = await first;
    await waitOnExecutionContext(ctx);
    expect(slow.status).toBe(201);
    expect(((await slow.json()) as { id: string }).id).toBe(created.id);
    expect(await versionsOf(key, created.id)).toBe(1);
    const rows = (await (await send("GET", `/v1/dataset/${created.id}/latest/rows`, { key })).json()) as { rows: unknown[] };
    expect(rows.rows.length).toBe(3);

    // Sent once more, the last chunk gets the same answer again.
    const again = await patchChunk(key, location, final, new Uint8Array(0), true);
    expect(again.status).toBe(201);
    expect(((await again.json()) as { id: string }).id).toBe(created.id);
  });

  it("appends once when the append's commit is retaken", async () => {
    const key = await createKey(TEAM, "append");
    const { id } = await createDataset(key, "id,city\n1,Oslo\n", { name: "Grows" });
    const location = await startUpload(key, "POST", `/v1/dataset/${id}`, { fileName: "more.csv" });
    const chunk = encoder.encode("2,Lima\n");
    // The stuck worker commits directly (its batch is the one that can be held here); the
    // retaking one goes through the dataset's append sequencer, as appends do.
    const stuck = stuckCommits();
    const ctx = createExecutionContext();
    const first = worker.fetch(await signedPatch(key, location, 0, chunk, true), { ...env, DB: stuck.DB, APPEND_SEQUENCER: undefined }, ctx);
    await stuck.atGate;
    await age(location, COMMIT_LEASE_MS + 1000);
    const retaken = await patchChunk(key, location, chunk.length, new Uint8Array(0), true);
    expect(retaken.status).toBe(201);
    const answer = (await retaken.json()) as { version: string };
    stuck.release();
    const slow = await first;
    await waitOnExecutionContext(ctx);
    expect(slow.status).toBe(201);
    expect(((await slow.json()) as { version: string }).version).toBe(answer.version);
    expect(await versionsOf(key, id)).toBe(2);
    expect(await csvOf(key, id)).toBe("id,city\n1,Oslo\n2,Lima\n");
  });
});
