// Dictionary pages of the twin's chunks, kept decoded in the isolate once a query has read them
// (docs/queries.md#cost). A page-pruned query reads a few data pages of a column, and also that
// column's dictionary page, a span of its own at the chunk's start; every query on the same row
// group needs the same one. A part object never changes once written, so a dictionary is kept
// under its part's key, its chunk's offset in the part and the field type its cells are read as,
// the least recently used going first past the bound.
import type { Dictionary } from "../columnar/parquet/read-chunk.ts";
import type { FieldType } from "../schema/table-schema.ts";
import { KeptInIsolate } from "../storage/kept-in-isolate.ts";

/**
 * Bytes of dictionaries an isolate keeps, each counted as all it may come to hold once every
 * entry is decoded (Dictionary.heldBytes): 0.35 MB a row group of the bench's 100 MiB version,
 * 4.5 MB for its 13 (docs/queries.md#cost); a small share of the isolate's 128 MiB.
 */
export const KEPT_DICTIONARY_BYTES = 8 * 1024 * 1024;

export class KeptDictionaries {
  private readonly kept: KeptInIsolate<Dictionary>;

  constructor(limit = KEPT_DICTIONARY_BYTES) {
    this.kept = new KeptInIsolate<Dictionary>(limit);
  }

  /** The dictionary of the chunk starting at `offset` of part `key`, read as `type`, if kept. */
  get(key: string, offset: number, type: FieldType): Dictionary | undefined {
    return this.kept.get(`${key}@${offset}:${type}`);
  }

  keep(key: string, offset: number, type: FieldType, dictionary: Dictionary): void {
    this.kept.keep(`${key}@${offset}:${type}`, dictionary, dictionary.heldBytes);
  }

  /** Bytes held now, as counted. */
  get bytes(): number {
    return this.kept.bytes;
  }
}
