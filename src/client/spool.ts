// Where the compressed upload waits between the digest pass and the send when it is not
// simply compressed again: memory for one-shot streams, or a caller's store (the CLI uses a
// temp file) so a large file is gzipped once rather than twice.
import { streamOf, concatStreams } from "./byte-streams.ts";

export interface Spool {
  write(chunk: Uint8Array): Promise<void>;
  /** Called once, after the last write and before the first open. */
  close(): Promise<void>;
  /** A fresh stream of everything written; opened once per attempt. */
  open(): ReadableStream<Uint8Array>;
  /** Frees what the spool holds; called once the call is over, whatever its outcome. */
  dispose(): Promise<void>;
}

export type SpoolFactory = () => Promise<Spool>;

/** Keeps the chunks in memory: costs the compressed size in RAM. */
export function memorySpool(): Spool {
  let chunks: Uint8Array[] = [];
  return {
    write: async (chunk) => {
      chunks.push(chunk);
    },
    close: async () => undefined,
    open: () => concatStreams(chunks.map((chunk) => () => streamOf(chunk))),
    dispose: async () => {
      chunks = [];
    },
  };
}
