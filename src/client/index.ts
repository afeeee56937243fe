// The public surface of the pubset client: import from here, not from the modules behind it.
export { PubsetClient, PubsetClient as Client, DEFAULT_URL, type PubsetClientOptions, type CallOptions, type UploadOptions } from "./client.ts";
export { PubsetError, PubsetNetworkError, UploadSourceError } from "./errors.ts";
export { downloadFileName, type Download, type DownloadOptions, type DownloadTarget } from "./download.ts";
export type { GzipLevel } from "./gzip-stream.ts";
export type { RetryPolicy } from "./retry.ts";
export type { SigningKey } from "./request-signing.ts";
export { verifyWebhook, WebhookVerificationError, type WebhookHeaders } from "./webhooks.ts";
export type { ChangesOptions } from "./changes.ts";
export type { WebhookCalls } from "./webhook-calls.ts";
export { memorySpool, type Spool, type SpoolFactory } from "./spool.ts";
export type { UploadInput, ReopenableSource } from "./upload-source.ts";
export type { FileOptions, WriteOptions } from "./write-request.ts";
export type * from "./types.ts";
