// What `pubset create` sends is stored as it was sent (docs/storage-protocol.md, "Upload format"):
// against a real `npm start`, the version's `.gz` is the client's parted gzip byte for byte,
// its 10-byte standard header in place of the one that lists the parts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { partedDeflateStream, partedEnvelope } from "../../src/client/gzip-stream.ts";
import { readAllBytes } from "../../src/client/byte-streams.ts";
import { GZIP_HEADER } from "../../src/wire/gzip-join.ts";
import { runInProcess } from "./cli.helpers.ts";
import { e2eServer, type E2eServer } from "./helpers/shared-server.ts";

const dir = mkdtempSync(join(tmpdir(), "pubset-parted-upload-"));
let server: E2eServer & { stop(): Promise<void> };

beforeAll(async () => {
  server = await e2eServer();
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it("the CLI's upload is the stored segment: the .gz differs from what it sent only in the header", async () => {
  let csv = "id,name,note\n";
  for (let i = 0; i < 40_000; i++) csv += `${i},"name ${(i * 7919) % 10007}","a, b\nc ${i % 11}"\n`;
  writeFileSync(join(dir, "parted.csv"), csv);
  const env = { PUBSET_URL: server.url, PUBSET_KEY_ID: server.demoKey.key_id, PUBSET_SECRET: server.demoKey.secret, PUBSET_CONFIG: join(dir, "none.json"), HOME: dir };
  const run = await runInProcess(["create", join(dir, "parted.csv"), "--name", "Parted", "--json"], env);
  expect(run.code).toBe(0);
  const { source } = JSON.parse(run.stdout) as { source: string };
  const { stream, summary } = partedDeflateStream(3);
  const parts = await readAllBytes(new Blob([csv]).stream().pipeThrough(stream));
  const { header, trailer } = partedEnvelope(await summary);
  expect(header.length).toBeGreaterThan(GZIP_HEADER.length);
  const saved = await runInProcess(["download", source, "-o", join(dir, "stored.csv.gz")], env);
  expect(saved.code).toBe(0);
  expect(Buffer.compare(readFileSync(join(dir, "stored.csv.gz")), Buffer.concat([GZIP_HEADER, parts, trailer]))).toBe(0);
});
