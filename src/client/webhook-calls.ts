// The webhook routes (docs/changes.md "Webhooks") as calls: every one is signed, and a create's
// JSON body is digested before it is signed, as every body is (docs/api.md#signing-requests).
import { contentDigestHeader } from "../wire/content-digest.ts";
import type { RequestBody, Transport } from "./transport.ts";
import type { WebhookCreated, WebhookDeliveryRecord, WebhookRecord } from "./types.ts";

async function jsonBody(value: unknown): Promise<RequestBody> {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  return {
    contentType: "application/json",
    length: bytes.length,
    contentDigest: await contentDigestHeader(bytes),
    open: () => new Blob([bytes]).stream(),
  };
}

export class WebhookCalls {
  private readonly transport: Transport;
  private readonly baseUrl: string;

  constructor(transport: Transport, baseUrl: string) {
    this.transport = transport;
    this.baseUrl = baseUrl;
  }

  private url(...path: string[]): string {
    return [`${this.baseUrl}/v1/webhooks`, ...path.map(encodeURIComponent)].join("/");
  }

  private async json<T>(method: "GET" | "POST", url: string, signal?: AbortSignal, body?: unknown): Promise<T> {
    // A create is not retried blindly: a lost answer would leave a webhook whose secret nobody saw.
    const response = await this.transport.send({ method, url, signal, body: body === undefined ? undefined : await jsonBody(body), retries: method === "POST" ? 0 : undefined });
    return (await response.json()) as T;
  }

  create(webhook: { url: string; events?: string[]; datasets?: string[] }, signal?: AbortSignal): Promise<WebhookCreated> {
    return this.json("POST", `${this.baseUrl}/v1/webhooks`, signal, webhook);
  }

  async list(signal?: AbortSignal): Promise<WebhookRecord[]> {
    return (await this.json<{ results: WebhookRecord[] }>("GET", `${this.baseUrl}/v1/webhooks`, signal)).results;
  }

  get(id: string, signal?: AbortSignal): Promise<WebhookRecord> {
    return this.json("GET", this.url(id), signal);
  }

  async delete(id: string, signal?: AbortSignal): Promise<void> {
    const response = await this.transport.send({ method: "DELETE", url: this.url(id), signal });
    await response.body?.cancel();
  }

  rotateSecret(id: string, signal?: AbortSignal): Promise<{ secret: string; previous_valid_until: string }> {
    return this.json("POST", this.url(id, "secret"), signal);
  }

  async deliveries(id: string, options: { limit?: number; signal?: AbortSignal } = {}): Promise<WebhookDeliveryRecord[]> {
    const query = options.limit === undefined ? "" : `?limit=${options.limit}`;
    return (await this.json<{ results: WebhookDeliveryRecord[] }>("GET", this.url(id, "deliveries") + query, options.signal)).results;
  }

  enable(id: string, signal?: AbortSignal): Promise<WebhookRecord> {
    return this.json("POST", this.url(id, "enable"), signal);
  }
}
