// The CLI's spool (see src/client/spool.ts): the compressed upload goes to a temp file during
// the digest pass and is streamed from there, so a large file is gzipped once, in bounded memory.
// The file goes on every way out: dispose() after the call, a write refused once the command
// is interrupted (so compression stops), and an exit hook for a process that ends early.
import { openAsBlob, rmSync } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Spool } from "../client/index.ts";

const live = new Set<string>();
let hooked = false;

function removeLeftovers(): void {
  for (const dir of live) rmSync(dir, { recursive: true, force: true });
  live.clear();
}

export async function fileSpool(signal?: AbortSignal): Promise<Spool> {
  signal?.throwIfAborted();
  if (!hooked) {
    process.on("exit", removeLeftovers);
    hooked = true;
  }
  const dir = await mkdtemp(join(tmpdir(), "pubset-upload-"));
  live.add(dir);
  const path = join(dir, "body.gz");
  const handle = await open(path, "wx", 0o600);
  let blob: Blob | null = null;
  return {
    write: async (chunk) => {
      signal?.throwIfAborted();
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
      live.delete(dir);
    },
  };
}
