// Dictionary pages of the twin's chunks, kept in the isolate once a query has read them
// (docs/queries.md#cost). A page-pruned query reads a few data pages of a column, and also that
// column's dictionary page, a span of its own at the chunk's start; every query on the same row
// group needs the same one. A part object never changes once written, so a page is kept under
// its part's key and its offset in the part, the least recently used going first past the bound.
import { KeptInIsolate } from "../storage/kept-in-isolate.ts";

/**
 * Bytes of dictionary pages an isolate keeps, as stored (compressed, with their headers): those
 * of the bench's 100 MiB version are about 0.4 MB (docs/queries.md#cost), so this holds those of
 * about ten such versions, a small share of the isolate's 128 MiB.
 */
export const KEPT_DICTIONARY_BYTES = 4 * 1024 * 1024;

export class KeptDictionaries {
  private readonly kept: KeptInIsolate<Uint8Array>;

  constructor(limit = KEPT_DICTIONARY_BYTES) {
    this.kept = new KeptInIsolate<Uint8Array>(limit);
  }

  /** The dictionary page of the chunk starting at `offset` of part `key`, if kept. */
  get(key: string, offset: number): Uint8Array | undefined {
    return this.kept.get(`${key}@${offset}`);
  }

  /**
   * Keeps a copy of `page`: it is a view into the bytes of a whole range read, which would stay
   * held (up to a row group's chunks) if the view were kept.
   */
  keep(key: string, offset: number, page: Uint8Array): void {
    this.kept.keep(`${key}@${offset}`, page.slice(), page.length);
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.kept.bytes;
  }
}
