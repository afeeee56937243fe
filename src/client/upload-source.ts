// What an upload can come from — a Blob or File, bytes, CSV text, a stream, something that
// re-opens a stream, or (Node) a file path — normalised into one reader the upload path uses.
import { streamOf } from "./byte-streams.ts";

/** A source that can be read more than once (a retry or a second pass re-opens it). */
export interface ReopenableSource {
  stream(): ReadableStream<Uint8Array>;
  size?: number;
  name?: string;
}

/**
 * The content of a `dataset` part. A string is CSV text; `{ path }` is a file (Node only);
 * a bare ReadableStream can be read once, so its compressed form is kept in memory (or in the
 * client's spool) for the send and any retry.
 */
export type UploadInput = Blob | Uint8Array | string | ReadableStream<Uint8Array> | ReopenableSource | { path: string };

export interface SourceReader {
  /** The file name sent to the server, before any `.gz` the client adds. */
  name: string;
  size: number | undefined;
  reopenable: boolean;
  open(): ReadableStream<Uint8Array>;
}

const DEFAULT_NAME = "dataset.csv";

function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || DEFAULT_NAME;
}

interface NodeFs {
  openAsBlob(path: string): Promise<Blob>;
}

// Resolved at run time so the module still loads (and type-checks) where there is no node:fs.
const NODE_FS_MODULE = "node:fs";

async function openFileAsBlob(path: string): Promise<Blob> {
  let fs: NodeFs;
  try {
    fs = (await import(NODE_FS_MODULE)) as NodeFs;
  } catch {
    throw new Error("a { path } upload source needs Node (node:fs); pass a Blob or a stream instead");
  }
  return fs.openAsBlob(path);
}

function fromBlob(blob: Blob, name: string): SourceReader {
  return { name, size: blob.size, reopenable: true, open: () => blob.stream() };
}

export async function sourceReader(input: UploadInput, name?: string): Promise<SourceReader> {
  if (typeof input === "string") input = new TextEncoder().encode(input);
  if (input instanceof Uint8Array) {
    const bytes = input;
    return { name: name ?? DEFAULT_NAME, size: bytes.length, reopenable: true, open: () => streamOf(bytes) };
  }
  if (input instanceof Blob) {
    const fileName = "name" in input && typeof input.name === "string" && input.name !== "" ? input.name : DEFAULT_NAME;
    return fromBlob(input, name ?? fileName);
  }
  if (input instanceof ReadableStream) {
    let used = false;
    const stream = input;
    const open = () => {
      if (used) throw new Error("a ReadableStream upload source can be read only once");
      used = true;
      return stream;
    };
    return { name: name ?? DEFAULT_NAME, size: undefined, reopenable: false, open };
  }
  if ("path" in input) return fromBlob(await openFileAsBlob(input.path), name ?? baseName(input.path));
  const source = input;
  return { name: name ?? source.name ?? DEFAULT_NAME, size: source.size, reopenable: true, open: () => source.stream() };
}
