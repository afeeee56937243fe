// FILE arguments of the write commands: a path (streamed from disk, name kept) or `-` for
// stdin (read once, so spooled; sent as dataset.csv).
import { statSync } from "node:fs";
import { Readable } from "node:stream";
import type { UploadInput } from "../client/index.ts";
import { UsageError } from "./cli-error.ts";

export function uploadInput(file: string, stdin: NodeJS.ReadableStream): UploadInput {
  if (file === "-") return Readable.toWeb(Readable.from(stdin)) as ReadableStream<Uint8Array>;
  let isFile = false;
  try {
    isFile = statSync(file).isFile();
  } catch {
    throw new UsageError(`no such file: ${file}`);
  }
  if (!isFile) throw new UsageError(`not a file: ${file}`);
  return { path: file };
}
