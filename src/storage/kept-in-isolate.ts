// What an isolate keeps of objects that never change once written (part metadata, a twin's
// made tail, a rendered statistics document; docs/storage-protocol.md "The Parquet twin"): kept
// under the immutable key they came from, the least recently used dropped first. The bound is on
// bytes, not entries, so the isolate's memory stays bounded whatever the sizes of the versions
// asked; one larger than the bound is not kept.
export class KeptInIsolate<T> {
  private readonly entries = new Map<string, { value: T; bytes: number }>();
  private held = 0;
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** The value kept under `key`, now the most recently used. */
  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value`, counted as `bytes`, dropping the least recently used past the bound. */
  keep(key: string, value: T, bytes: number): void {
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
    this.entries.set(key, { value, bytes });
    this.held += bytes;
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.held;
  }
}
