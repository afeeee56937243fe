// /v1/webhooks — a team's webhooks (docs/changes.md "Webhooks"): create, list, show, delete,
// rotate the secret, list deliveries, enable again. Every route is signed and sees only the
// key's team's webhooks (another team's answers 404, as a missing one). Never cached.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../app-env.ts";
import { LIST_DEFAULT_LIMIT } from "../../config.ts";
import { readPolicy, withPolicy, writePolicy, type RoutePolicy } from "../../edge/route-policy.ts";
import { encodeChangeCursor } from "../../http/cursor.ts";
import { describeIssue } from "../../http/issue-words.ts";
import { problemResponse } from "../../http/schemas.ts";
import { ApiError, SIGNATURE_REQUIRED_DETAIL } from "../../model/errors.ts";
import type { Caller } from "../../model/dataset.ts";
import { newWebhookSecret } from "../../wire/standard-webhooks.ts";
import { deliveryMessages, drainOutbox, send } from "./drain.ts";
import { sealWebhookSecret } from "./secrets.ts";
import { checkWebhookUrl, localhostAllowed, URL_REFUSALS } from "./url.ts";
import { deleteWebhook, enableWebhook, getWebhook, insertWebhook, listDeliveries, listWebhooks, rotateSecret, type DeliveryRow, type WebhookRow } from "./store.ts";
import { EVENT_TYPES } from "../../model/change-events.ts";
import { concatBytes } from "../../wire/deflate-segment.ts";
import { MAX_WEBHOOK_URL_LENGTH } from "./url.ts";
import {
  MAX_WEBHOOK_DATASETS,
  type CreateWebhook,
  CreatedWebhookSchema,
  CreateWebhookSchema,
  DeliveriesQuerySchema,
  DeliveriesSchema,
  RotatedSecretSchema,
  WebhookListSchema,
  WebhookParamsSchema,
  WebhookSchema,
} from "./schemas.ts";

/** How long a rotated-out secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/** Signed, never cached; webhook writes are not idempotent by key, since their answers hold secrets. */
const SIGNED_READ: RoutePolicy = { ...readPolicy("none"), signed: true };
const SIGNED_WRITE: RoutePolicy = { ...writePolicy(), idempotent: false };

const signed = { 401: problemResponse("Not signed, or the signature does not verify") };
const missing = { 404: problemResponse("No such webhook of the key's team") };

function caller(c: Context<AppEnv>): Caller {
  const found = c.get("caller");
  if (!found) throw new ApiError("signature_required", SIGNATURE_REQUIRED_DETAIL);
  c.header("Cache-Control", "private, no-store");
  return found;
}

function shape(w: WebhookRow) {
  return { id: w.id, url: w.url, events: w.events, datasets: w.datasets, created: w.created, enabled: w.enabled, disabled_reason: w.disabledReason };
}

function deliveryShape(d: DeliveryRow) {
  return {
    cursor: encodeChangeCursor(d.seq),
    type: d.type,
    status: d.state,
    attempts: d.attempts,
    response_code: d.responseStatus,
    response_body: d.responseBody,
    error: d.error,
    next_retry: d.state === "pending" ? new Date(d.nextAttempt).toISOString() : null,
    updated: new Date(d.updated).toISOString(),
  };
}

async function owned(c: Context<AppEnv>, teamId: string, id: string): Promise<WebhookRow> {
  const webhook = await getWebhook(c.env.DB, teamId, id);
  if (!webhook) throw new ApiError("not_found", `No webhook ${id}.`);
  return webhook;
}

const CREATE_BODY_DOCUMENT = {
  type: "object" as const,
  required: ["url"],
  additionalProperties: false,
  properties: {
    url: { type: "string" as const, maxLength: MAX_WEBHOOK_URL_LENGTH, description: "An https URL with a public host name. Before each delivery the name's A and AAAA records are looked up (DNS over HTTPS): the attempt is made only if every address is public, and fails otherwise." },
    events: { type: "array" as const, items: { type: "string" as const, enum: [...EVENT_TYPES] }, description: "The event types to receive; absent or empty: all of them." },
    datasets: {
      type: "array" as const,
      maxItems: MAX_WEBHOOK_DATASETS,
      items: { type: "string" as const, format: "uuid" },
      description: "Other teams' datasets whose public events to receive as well; the team's own are always included.",
    },
  },
};

/** The most a create's JSON body may hold. */
const MAX_BODY_BYTES = 16 * 1024;

async function createBody(stream: ReadableStream<Uint8Array> | null): Promise<CreateWebhook> {
  if (!stream) throw new ApiError("invalid_request", "Send a JSON body: {\"url\": …}.");
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.length;
    if (length > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new ApiError("payload_too_large", `A webhook's JSON body is at most ${MAX_BODY_BYTES} bytes.`);
    }
    chunks.push(value);
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(concatBytes(chunks)));
  } catch {
    throw new ApiError("invalid_request", "The body is not JSON.");
  }
  const parsed = CreateWebhookSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApiError("invalid_request", issue ? describeIssue(issue, "field", { scope: issue.path.length === 0 ? "body" : undefined }) : "body: invalid");
  }
  return parsed.data;
}

export const createWebhookRoute = withPolicy(
  createRoute({
    method: "post",
    path: "/",
    summary: "Create a webhook",
    description: "Receives the team's events, and the public events of the other teams' datasets it names, from its creation on.",
    // Read from the digest-checked body (src/auth/signature-middleware.ts), so described here as a
    // plain schema: a zod one would make the validator read the raw request instead.
    request: { body: { required: true, content: { "application/json": { schema: CREATE_BODY_DOCUMENT } } } },
    responses: {
      201: { description: "Created; `secret` is shown only here", content: { "application/json": { schema: CreatedWebhookSchema } } },
      400: problemResponse("Invalid body, or a URL that is not an https URL with a public host name"),
      ...signed,
    },
  }),
  SIGNED_WRITE,
);

export const listWebhooksRoute = withPolicy(
  createRoute({
    method: "get",
    path: "/",
    summary: "List the team's webhooks",
    responses: { 200: { description: "Oldest first", content: { "application/json": { schema: WebhookListSchema } } }, ...signed },
  }),
  SIGNED_READ,
);

export const getWebhookRoute = withPolicy(
  createRoute({
    method: "get",
    path: "/{id}",
    summary: "Show a webhook",
    request: { params: WebhookParamsSchema },
    responses: { 200: { description: "The webhook, never its secret", content: { "application/json": { schema: WebhookSchema } } }, 400: problemResponse("Malformed id"), ...signed, ...missing },
  }),
  SIGNED_READ,
);

export const deleteWebhookRoute = withPolicy(
  createRoute({
    method: "delete",
    path: "/{id}",
    summary: "Delete a webhook and its delivery records",
    request: { params: WebhookParamsSchema },
    responses: { 204: { description: "Deleted" }, 400: problemResponse("Malformed id"), ...signed, ...missing },
  }),
  SIGNED_WRITE,
);

export const rotateSecretRoute = withPolicy(
  createRoute({
    method: "post",
    path: "/{id}/secret",
    summary: "Rotate a webhook's secret",
    description: "A new secret; for 24 hours deliveries carry signatures by both, so a receiver holding either verifies.",
    request: { params: WebhookParamsSchema },
    responses: { 200: { description: "The new secret", content: { "application/json": { schema: RotatedSecretSchema } } }, 400: problemResponse("Malformed id"), ...signed, ...missing },
  }),
  SIGNED_WRITE,
);

export const deliveriesRoute = withPolicy(
  createRoute({
    method: "get",
    path: "/{id}/deliveries",
    summary: "A webhook's recent deliveries",
    request: { params: WebhookParamsSchema, query: DeliveriesQuerySchema },
    responses: {
      200: { description: "Newest event first", content: { "application/json": { schema: DeliveriesSchema } } },
      400: problemResponse("Malformed id or query"),
      ...signed,
      ...missing,
    },
  }),
  SIGNED_READ,
);

export const enableWebhookRoute = withPolicy(
  createRoute({
    method: "post",
    path: "/{id}/enable",
    summary: "Enable a disabled webhook again",
    description: "Delivery resumes from the first undelivered event.",
    request: { params: WebhookParamsSchema },
    responses: { 200: { description: "The webhook, enabled", content: { "application/json": { schema: WebhookSchema } } }, 400: problemResponse("Malformed id"), ...signed, ...missing },
  }),
  SIGNED_WRITE,
);

export function registerWebhooks(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createWebhookRoute, async (c) => {
    const who = caller(c);
    const body = await createBody(c.get("body"));
    const check = checkWebhookUrl(body.url, localhostAllowed(c.env.WEBHOOKS_ALLOW_LOCALHOST));
    if (!check.ok) throw new ApiError("invalid_request", URL_REFUSALS[check.reason], { reason: check.reason });
    const id = crypto.randomUUID();
    const secret = newWebhookSecret();
    const webhook = {
      id,
      teamId: who.teamId,
      url: check.url,
      events: [...new Set(body.events ?? [])],
      datasets: [...new Set(body.datasets ?? [])],
      secret: await sealWebhookSecret(c.env.KEY_ENCRYPTION_KEY, id, secret),
      created: new Date().toISOString(),
    };
    await insertWebhook(c.env.DB, webhook);
    c.header("Location", `/v1/webhooks/${id}`);
    return c.json({ id, url: webhook.url, events: webhook.events, datasets: webhook.datasets, created: webhook.created, enabled: true, secret }, 201);
  });

  app.openapi(listWebhooksRoute, async (c) => {
    const who = caller(c);
    return c.json({ results: (await listWebhooks(c.env.DB, who.teamId)).map(shape) }, 200);
  });

  app.openapi(getWebhookRoute, async (c) => {
    const who = caller(c);
    return c.json(shape(await owned(c, who.teamId, c.req.valid("param").id)), 200);
  });

  app.openapi(deleteWebhookRoute, async (c) => {
    const who = caller(c);
    const { id } = c.req.valid("param");
    if (!(await deleteWebhook(c.env.DB, who.teamId, id))) throw new ApiError("not_found", `No webhook ${id}.`);
    return c.body(null, 204);
  });

  app.openapi(rotateSecretRoute, async (c) => {
    const who = caller(c);
    const { id } = c.req.valid("param");
    const secret = newWebhookSecret();
    const until = Date.now() + ROTATION_OVERLAP_MS;
    if (!(await rotateSecret(c.env.DB, who.teamId, id, await sealWebhookSecret(c.env.KEY_ENCRYPTION_KEY, id, secret), until))) {
      throw new ApiError("not_found", `No webhook ${id}.`);
    }
    return c.json({ secret, previous_valid_until: new Date(until).toISOString() }, 200);
  });

  app.openapi(deliveriesRoute, async (c) => {
    const who = caller(c);
    const webhook = await owned(c, who.teamId, c.req.valid("param").id);
    const limit = c.req.valid("query").limit ?? LIST_DEFAULT_LIMIT;
    return c.json({ results: (await listDeliveries(c.env.DB, webhook.id, undefined, limit)).map(deliveryShape) }, 200);
  });

  app.openapi(enableWebhookRoute, async (c) => {
    const who = caller(c);
    const { id } = c.req.valid("param");
    const due = await enableWebhook(c.env.DB, who.teamId, id, Date.now());
    if (due === null) throw new ApiError("not_found", `No webhook ${id}.`);
    await send(c.env.WEBHOOKS, deliveryMessages(due.map((seq) => ({ webhookId: id, seq }))));
    // The events committed while it was disabled: the drain moves them now, not at the next commit.
    await drainOutbox(c.env);
    return c.json(shape(await owned(c, who.teamId, id)), 200);
  });
}
