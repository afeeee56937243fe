// PubsetClient: every endpoint of the v1 dataset API (docs/api.md) as typed methods. Signs with
// RFC 9421 when given a key, gzips uploads client-side, retries safely. fetch + WebCrypto only,
// so it runs in Node ≥ 20, browsers, Deno, Bun and Workers.
import { linkTarget } from "./link-header.ts";
import { download, sourcePath, type Download, type DownloadOptions, type DownloadTarget } from "./download.ts";
import { DEFAULT_GZIP_LEVEL, type GzipLevel } from "./gzip-stream.ts";
import { RESUMABLE_THRESHOLD } from "./resumable-upload.ts";
import { paginate } from "./paginate.ts";
import { rowsQueryParams } from "./rows-query.ts";
import { followChanges, type ChangesOptions } from "./changes.ts";
import { WebhookCalls } from "./webhook-calls.ts";
import type { SpoolFactory } from "./spool.ts";
import { Transport, type TransportOptions } from "./transport.ts";
import type {
  ChangeEvent,
  Collection,
  DatasetAppended,
  DatasetCreated,
  DatasetListItem,
  DatasetTeamListItem,
  DatasetUpdated,
  DatasetVersion,
  ListFilter,
  RowsPage,
  RowsQuery,
  TableSchema,
  VersionSummary,
} from "./types.ts";
import type { UploadInput } from "./upload-source.ts";
import { sendWrite, uploadFile, type FileOptions, type WriteContext, type WriteOptions } from "./write-request.ts";

export const DEFAULT_URL = "http://127.0.0.1:8787";

export interface PubsetClientOptions extends TransportOptions {
  /** The service's base URL (default http://127.0.0.1:8787, what `npm start` serves). */
  url?: string;
  gzipLevel?: GzipLevel;
  /** Where compressed uploads wait between the digest pass and the send (spool.ts);
   * default: compress again from the source, or memory for one-shot streams. */
  spool?: SpoolFactory;
  /** Content of more than this many bytes goes as a resumable upload (default 64 MiB). */
  resumableThreshold?: number;
  /** Content bytes per resumable chunk (default 32 MiB, at most what the server allows). */
  chunkBytes?: number;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export type UploadOptions = WriteOptions & FileOptions;

export class PubsetClient {
  readonly baseUrl: string;
  private readonly transport: Transport;
  private readonly writes: WriteContext;
  /** The team's webhooks (docs/changes.md "Webhooks"): create, list, get, delete, rotateSecret, deliveries, enable. */
  readonly webhooks: WebhookCalls;

  constructor(options: PubsetClientOptions = {}) {
    this.baseUrl = (options.url ?? DEFAULT_URL).replace(/\/+$/, "");
    this.transport = new Transport(options);
    this.writes = {
      transport: this.transport,
      gzipLevel: options.gzipLevel ?? DEFAULT_GZIP_LEVEL,
      spool: options.spool,
      resumableThreshold: options.resumableThreshold ?? RESUMABLE_THRESHOLD,
      chunkBytes: options.chunkBytes,
    };
    this.webhooks = new WebhookCalls(this.transport, this.baseUrl);
  }

  /** The newest D1 bookmark this client has seen (X-D1-Bookmark), to hand to a later client. */
  get bookmark(): string | undefined {
    return this.transport.bookmark;
  }

  /** True when requests are signed (a key was given). */
  get signed(): boolean {
    return this.transport.signing;
  }

  /** Every dataset the caller may list, newest first (with `q`: best match first), page by page. */
  list(filter: ListFilter & { team: string; owner?: undefined }, options?: CallOptions): AsyncGenerator<DatasetTeamListItem, void, undefined>;
  list(filter?: ListFilter, options?: CallOptions): AsyncGenerator<DatasetListItem, void, undefined>;
  list(filter: ListFilter = {}, options: CallOptions = {}): AsyncGenerator<DatasetListItem | DatasetTeamListItem, void, undefined> {
    const query = new URLSearchParams();
    for (const key of ["owner", "team", "q"] as const) {
      const value = filter[key];
      if (value !== undefined) query.set(key, value);
    }
    if (filter.limit !== undefined) query.set("limit", String(filter.limit));
    return paginate(this.transport, this.url("", query), options.signal);
  }

  /** Full-text search over name, description, key words, contact and columns (docs/api.md#search); best match
   * first. With a team too, use `list({ team, q })`. */
  search(q: string, filter: { owner?: string; limit?: number } = {}, options?: CallOptions): AsyncGenerator<DatasetListItem, void, undefined> {
    return this.list({ ...filter, q }, options);
  }

  async get(id: string, version?: string, options: CallOptions = {}): Promise<DatasetVersion> {
    const path = version === undefined ? [id] : [id, version];
    return this.json<DatasetVersion>(this.url(path), options);
  }

  /** The dataset's versions, newest first. */
  versions(id: string, options: CallOptions & { limit?: number } = {}): AsyncGenerator<VersionSummary, void, undefined> {
    const query = new URLSearchParams();
    if (options.limit !== undefined) query.set("limit", String(options.limit));
    return paginate(this.transport, this.url([id, "versions"], query), options.signal);
  }

  /** A version's Table Schema: the type of each column (default: latest version). */
  async schema(id: string, version?: string, options: CallOptions = {}): Promise<TableSchema> {
    return this.json<TableSchema>(this.url([id, version ?? "latest", "schema"]), options);
  }

  /**
   * A window of a version's data rows as JSON, typed by its schema (default: latest version,
   * offset 0, server's limit). With `where`, `columns` or `order` it asks a question
   * (docs/queries.md): the matching rows in that order, `matched` counting them all.
   */
  async rows(id: string, options: CallOptions & RowsQuery & { version?: string; offset?: number; limit?: number } = {}): Promise<RowsPage> {
    const query = rowsQueryParams(options);
    if (options.offset !== undefined) query.set("offset", String(options.offset));
    if (options.limit !== undefined) query.set("limit", String(options.limit));
    return this.json<RowsPage>(this.url([id, options.version ?? "latest", "rows"], query), options);
  }

  /**
   * Every row that answers the question, as CSV (header first), streamed from `/rows.csv`
   * (docs/queries.md): the whole answer, however large, without holding it in memory.
   */
  async exportRows(id: string, options: CallOptions & RowsQuery & { version?: string } = {}): Promise<ReadableStream<Uint8Array>> {
    const response = await this.transport.send({ method: "GET", url: this.url([id, options.version ?? "latest", "rows.csv"], rowsQueryParams(options)), signal: options.signal });
    if (response.body === null) throw new TypeError("the CSV export answered with no body");
    return response.body;
  }

  create(collection: Collection & { name: string }, content: UploadInput, options: UploadOptions = {}): Promise<DatasetCreated> {
    return this.write<DatasetCreated>("POST", [], collection, content, options);
  }

  /** Changes metadata and/or replaces the content (then its first row is the new header). */
  update(id: string, change: { collection?: Collection; content?: UploadInput }, options: UploadOptions = {}): Promise<DatasetUpdated> {
    if (change.collection === undefined && change.content === undefined) throw new TypeError("update needs a collection, content, or both");
    return this.write<DatasetUpdated>("PUT", [id], change.collection, change.content, options);
  }

  /** Appends data rows (no header) as a new version; `collection` may change metadata with it. */
  append(id: string, content: UploadInput, options: UploadOptions & { collection?: Collection } = {}): Promise<DatasetAppended> {
    return this.write<DatasetAppended>("POST", [id], options.collection, content, options);
  }

  async delete(id: string, options: CallOptions & { idempotencyKey?: string } = {}): Promise<void> {
    const response = await this.transport.send({
      method: "DELETE",
      url: this.url([id]),
      idempotencyKey: options.idempotencyKey ?? crypto.randomUUID(),
      signal: options.signal,
    });
    await response.body?.cancel();
  }

  /** A version's content as a stream: gzip as stored, or CSV (`format: "csv"`). Given an id
   * without a file name, the version's record is fetched first for its content link. */
  async download(target: DownloadTarget, options: DownloadOptions = {}): Promise<Download> {
    return download(this.transport, this.baseUrl + (await this.downloadPath(target, options)), options);
  }

  /** The `.gz` path `download` fetches for `target` (the record's content link for an id). */
  async downloadPath(target: DownloadTarget, options: CallOptions = {}): Promise<string> {
    if ("source" in target) return sourcePath(target);
    if (target.file !== undefined) return sourcePath({ ...target, file: target.file });
    return this.versionSource(target.id, target.version, options);
  }

  /** The download path of one version (`latest` when absent): its record's `Link: rel="enclosure"`. */
  async versionSource(id: string, version = "latest", options: CallOptions = {}): Promise<string> {
    const response = await this.transport.send({ method: "GET", url: this.url([id, version]), signal: options.signal });
    await response.body?.cancel();
    const target = linkTarget(response.headers.get("link"), "enclosure");
    if (target === null) throw new TypeError(`GET ${id}/${version} sent no Link rel="enclosure"; is the server older than this client?`);
    return new URL(target, response.url || this.baseUrl).pathname;
  }

  /**
   * The change feed (docs/changes.md): events after `since`, oldest first; signed, the key's
   * team's, else the public ones. With `wait`, it follows the feed until `signal` aborts.
   */
  changes(options: ChangesOptions = {}): AsyncGenerator<ChangeEvent, void, undefined> {
    return followChanges(this.transport, this.baseUrl, options);
  }

  private async write<T>(method: "POST" | "PUT", path: string[], collection: Collection | undefined, content: UploadInput | undefined, options: UploadOptions): Promise<T> {
    const file = content === undefined ? undefined : await uploadFile(content, options);
    return sendWrite<T>(this.writes, method, this.url(path), { collection, file }, options);
  }

  private async json<T>(url: string, options: CallOptions): Promise<T> {
    const response = await this.transport.send({ method: "GET", url, signal: options.signal });
    return (await response.json()) as T;
  }

  private url(path: string[] | "", query?: URLSearchParams): string {
    const segments = path === "" ? [] : path.map(encodeURIComponent);
    const search = query && query.size > 0 ? `?${query}` : "";
    return `${this.baseUrl}/v1/dataset${segments.length > 0 ? "/" + segments.join("/") : ""}${search}`;
  }
}
