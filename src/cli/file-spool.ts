// The CLI's spool (see src/client/spool.ts): the compressed upload goes to a temp file during
// the digest pass and is streamed from there, so a large file is gzipped once, in bounded memory.
import { openAsBlob } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Spool } from "../client/index.ts";

export async function fileSpool(): Promise<Spool> {
  const dir = await mkdtemp(join(tmpdir(), "pubset-upload-"));
  const path = join(dir, "body.gz");
  const handle = await open(path, "wx", 0o600);
  let blob: Blob | null = null;
  return {
    write: async (chunk) => {
      await handle.write(chunk);
    },
    close: async () => {
      await handle.close();
      blob = await openAsBlob(path);
    },
    open: () => {
      if (blob === null) throw new Error("spool opened before it was closed");
      return blob.stream();
    },
    dispose: async () => {
      await handle.close().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
