// The wire shapes of the v1 dataset API (docs/api.md) as the client returns them, and the
// inputs its methods take. Field sets follow the per-response table of docs/api.md exactly.
import type { DeclaredSchema } from "../schema/declared.ts";
import type { TableSchema } from "../schema/table-schema.ts";

export type Visibility = "public" | "private";

/** Free-form metadata; the known keys are typed, any other JSON value is allowed. */
export interface Properties {
  description?: string;
  key_words?: string[];
  contact_name?: string;
  [key: string]: unknown;
}

/** A list entry, unfiltered or by `owner` (also `team` + `owner`, and search). */
export interface DatasetListItem {
  id: string;
  name: string;
  version: string;
  owner: string;
  team: string;
  visibility: Visibility;
}

/** A list entry when filtered by `team` alone. */
export interface DatasetTeamListItem {
  id: string;
  name: string;
  version: string;
  visibility: Visibility;
  created: string;
  properties: Properties;
}

export interface DatasetCreated {
  id: string;
  name: string;
  version: string;
  properties: Properties;
  owner: string;
  team: string;
  visibility: Visibility;
  /** Path of the gzip content, e.g. `/v1/dataset/<id>/<version>/cities.csv.gz`. */
  source: string;
}

export type DatasetUpdated = Omit<DatasetCreated, "properties">;
export type DatasetAppended = Omit<DatasetUpdated, "source">;

/** `GET /v1/dataset/:id[/:version]`: one version's snapshot. */
export interface DatasetVersion {
  id: string;
  name: string;
  version: string;
  visibility: Visibility;
  created: string;
  properties: Properties;
}

/** An entry of `GET /v1/dataset/:id/versions`. */
export interface VersionSummary {
  version: string;
  created: string;
  /** Data rows, the header not counted. */
  rows: number;
  /** Uncompressed content bytes. */
  bytes: number;
  columns: string[];
}

// The schema types are the server's own (pure modules, no bindings): one definition of the wire
// format. `SchemaField` is the client's name for a Table Schema field.
export type { FieldType, Field as SchemaField, TableSchema } from "../schema/table-schema.ts";
export type { DeclaredSchema } from "../schema/declared.ts";

/**
 * A cell typed by its field: integer and number as numbers (an integer past ±(2^53−1), NaN and
 * INF as their text), boolean as true/false, a missing cell as null, anything else as text.
 */
export type Cell = string | number | boolean | null;

/** `GET /v1/dataset/:id/:version/rows`. */
export interface RowsPage {
  columns: string[];
  schema: TableSchema;
  rows: Cell[][];
  offset: number;
  total: number;
  /** Rows that match the question (every row when there is none); a lower bound when `partial`. */
  matched: number;
  /** The scan stopped at the server's budget: `matched` and the window hold what it read. */
  partial: boolean;
}

/**
 * A question to a version's rows (docs/queries.md): `where` is an expression such as
 * `state = 'NY' AND population > 1000`; `columns` and `order` are header names, as a list or
 * as the API's comma-separated text, a `-` before a name in `order` meaning descending.
 */
export interface RowsQuery {
  where?: string;
  columns?: string | readonly string[];
  order?: string | readonly string[];
}

/** RFC 9457 problem details as the service sends them (docs/api.md#errors). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  [extension: string]: unknown;
}

/** The writable part of a dataset (the multipart `collection` part, docs/api.md#writes). */
export interface Collection {
  name?: string;
  visibility?: Visibility;
  properties?: Properties;
  /** Beside `visibility: "public"` on update/append: publish the drafts too (docs/api.md#who-sees-what). */
  history?: "public";
  /**
   * Column types (docs/column-types.md) on create and update: declared fields are checked on every row, the
   * rest inferred. Sent alone on an update, it re-types the current content without re-uploading.
   */
  schema?: DeclaredSchema;
}

export interface ListFilter {
  owner?: string;
  team?: string;
  /** Full-text search words (docs/api.md). */
  q?: string;
  /** Page size, 1-1000; the iterator still follows every page. */
  limit?: number;
}

/** `processing`: every byte was sent and the server is validating and committing. */
export type ProgressPhase = "prepare" | "upload" | "processing" | "download";

export interface Progress {
  phase: ProgressPhase;
  /** Bytes so far: of the source while preparing, of the request body while uploading,
   * of the (compressed) response body while downloading. */
  loaded: number;
  /** The byte count `loaded` runs to, when known. */
  total?: number;
  /** A resumable upload: chunks that landed are kept, and a rerun with the same Idempotency-Key goes on from them. */
  resumable?: boolean;
  /** A resumed upload: the source bytes the server already held from an earlier run; `loaded`
   * starts there. While the client re-reads that part to find where to go on, the phase is
   * `prepare`. */
  resumedFrom?: number;
}

export type ProgressCallback = (progress: Progress) => void;

/** One event of the change feed (docs/changes.md): `version` and `team` are null where the view hides them. */
export interface ChangeEvent {
  cursor: string;
  type: "dataset.created" | "dataset.updated" | "dataset.appended" | "dataset.published" | "dataset.unpublished" | "dataset.deleted" | "dataset.withdrawn";
  id: string;
  version: string | null;
  team: string | null;
  occurred: string;
}

/** A webhook delivery's body, once verified (docs/changes.md "Webhooks"). */
export interface WebhookDelivery {
  type: ChangeEvent["type"];
  timestamp: string;
  data: ChangeEvent;
}

/** A webhook as listed and shown (docs/changes.md "Webhooks"): never its secret. */
export interface WebhookRecord {
  id: string;
  url: string;
  events: ChangeEvent["type"][];
  datasets: string[];
  created: string;
  enabled: boolean;
  disabled_reason: string | null;
}

/** The answer to creating one: the only time its secret is shown. */
export interface WebhookCreated extends Omit<WebhookRecord, "disabled_reason"> {
  secret: string;
}

export interface WebhookDeliveryRecord {
  cursor: string;
  type: ChangeEvent["type"] | null;
  status: "pending" | "delivered" | "withheld";
  attempts: number;
  response_code: number | null;
  response_body: string | null;
  error: string | null;
  next_retry: string | null;
  updated: string;
}
