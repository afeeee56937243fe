// What a dataset, a version, a segment and a caller are, as every room passes them around: the
// types the stores return and the write and read flows take. No bindings, no SQL.
import type { DeclaredSchema } from "../schema/declared.ts";
import type { TableSchema } from "../schema/table-schema.ts";
import type { SegmentPart } from "../wire/parted-segment.ts";

export type Visibility = "public" | "private";

export interface DatasetRow {
  id: string;
  teamId: string;
  ownerId: string;
  created: string;
  name: string;
  visibility: Visibility;
  latestVersion: string;
  latestSeq: number;
}

export interface VersionRow {
  id: string;
  datasetId: string;
  seq: number;
  parentId: string | null;
  created: string;
  name: string;
  visibility: Visibility;
  properties: Record<string, unknown>;
  fileName: string;
  columns: string[];
  rowCount: number;
  rawBytes: number;
  crc32: number;
  eol: "\n" | "\r\n";
  endsWithNewline: boolean;
  /**
   * The stored header and property set it names, when known (read versions, and versions that
   * keep their parent's): a commit then reuses them instead of hashing the JSON again.
   */
  headerId?: string;
  propertiesId?: string;
  /** The columns' types (docs/column-types.md); a version written before types were kept has text columns. */
  schema: TableSchema;
  /** The publisher's own declaration, which replacements of the content keep. */
  declared: DeclaredSchema | null;
  /** The stored schema and declaration it names, when known (see headerId). */
  schemaId?: string;
  declaredId?: string | null;
}

/** A stored version with what decides who may read it besides its team (docs/api.md#who-sees-what, drafts). */
export interface StoredVersionRow extends VersionRow {
  /** A version written while private, published by a later `"history": "public"` write. */
  historyPublic: boolean;
}

export interface SegmentRow {
  key: string;
  compressedBytes: number;
  rawBytes: number;
  rowCount: number;
  /** The object's independently decodable parts; absent when it is one part (or predates parts). */
  parts?: SegmentPart[];
}

/** Who a verified signature names: the key, its team and its user (docs/api.md, signing). */
export interface Caller {
  keyId: string;
  teamId: string;
  userId: string;
}
