// How long the storage protocol waits before it may delete an object (docs/storage-protocol.md).
// Both bounds are operator settings (wrangler.toml [vars]) read in src/config.ts.

export interface StorageTimings {
  /** Longer than any write takes: an upload's intent is collectable only after it. */
  writeGraceMs: number;
  /** Longer than any download takes: replaced or deleted objects are kept this long. */
  readGraceMs: number;
}
