// The twin parts' metadata kept in the isolate (docs/queries.md#cost): a part object is written
// once under a fresh key and never changes (docs/storage-protocol.md "The Parquet twin"), so its
// decoded metadata can be kept under that key and a repeated query on a version skips the reads.
// Least recently used goes first, and the bound is on bytes, not entries: the metadata text held
// (a decoded entry takes a few times its text in the heap), so the isolate's memory stays bounded
// whatever the sizes of the versions asked.
import type { PartMetadata } from "../columnar/parquet/index.ts";

/** Bytes of part metadata text kept: the metadata of about 60 versions of 100 MiB (docs/performance.md "Queries"). */
export const KEPT_METADATA_BYTES = 4 * 1024 * 1024;

export class KeptMetadata {
  private readonly entries = new Map<string, { meta: PartMetadata; bytes: number }>();
  private held = 0;
  private readonly limit: number;

  constructor(limit: number = KEPT_METADATA_BYTES) {
    this.limit = limit;
  }

  /** The metadata kept under `key`, now the most recently used. */
  get(key: string): PartMetadata | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.meta;
  }

  /** Keeps `meta`, decoded from `bytes` of text, dropping the least recently used past the bound; one larger than the bound is not kept. */
  keep(key: string, meta: PartMetadata, bytes: number): void {
    if (bytes > this.limit) return;
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.held -= old.bytes;
    }
    while (this.held + bytes > this.limit) {
      const [oldest, entry] = this.entries.entries().next().value!;
      this.entries.delete(oldest);
      this.held -= entry.bytes;
    }
    this.entries.set(key, { meta, bytes });
    this.held += bytes;
  }

  /** Bytes of metadata text held now. */
  get bytes(): number {
    return this.held;
  }
}
