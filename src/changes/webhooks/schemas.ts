// Request and response schemas of the webhook routes (docs/changes.md "Webhooks"), and the
// delivery format the OpenAPI document's `webhooks` section describes.
import { z } from "@hono/zod-openapi";
import { EVENT_TYPES } from "../../model/change-events.ts";
import { UUID_PATTERN } from "../../model/ids.ts";
import { LIST_MAX_LIMIT } from "../../config.ts";
import { MAX_WEBHOOK_URL_LENGTH } from "./url.ts";

export const MAX_WEBHOOK_DATASETS = 100;

export const WebhookIdSchema = z
  .string()
  .regex(UUID_PATTERN, "must be a lowercase UUID v4")
  .openapi({ param: { name: "id", in: "path" }, description: "The webhook's id." });
export const WebhookParamsSchema = z.object({ id: WebhookIdSchema });

export const CreateWebhookSchema = z
  .strictObject({
    url: z.string().min(1).max(MAX_WEBHOOK_URL_LENGTH).openapi({ description: "An https URL with a public host name. Before each delivery the name's A and AAAA records are looked up (DNS over HTTPS): the attempt is made only if every address is public, and fails otherwise." }),
    events: z
      .array(z.enum(EVENT_TYPES))
      .max(EVENT_TYPES.length)
      .optional()
      .openapi({ description: "The event types to receive; absent or empty: all of them." }),
    datasets: z
      .array(z.string().regex(UUID_PATTERN, "must be a lowercase UUID v4"))
      .max(MAX_WEBHOOK_DATASETS)
      .optional()
      .openapi({ description: "Other teams' datasets whose public events to receive as well; the team's own are always included." }),
  })
  .openapi("WebhookCreate");
export type CreateWebhook = z.infer<typeof CreateWebhookSchema>;

export const WebhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(EVENT_TYPES)),
    datasets: z.array(z.string()),
    created: z.string(),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable().openapi({ description: "Why it was disabled (an endpoint failing for 3 days); null while enabled." }),
  })
  .openapi("Webhook");

// The creation answer: the record as listed, without the reason (a new webhook is enabled), and
// with the secret, which no other answer shows.
export const CreatedWebhookSchema = WebhookSchema.omit({ disabled_reason: true })
  .extend({
    secret: z.string().openapi({ description: "The signing secret (`whsec_…`), shown only in this answer." }),
  })
  .openapi("WebhookCreated");

export const WebhookListSchema = z.object({ results: z.array(WebhookSchema) }).openapi("WebhookList");

export const RotatedSecretSchema = z
  .object({
    secret: z.string().openapi({ description: "The new signing secret, shown only here." }),
    previous_valid_until: z.string().openapi({ description: "Until then, deliveries carry a signature by the previous secret too." }),
  })
  .openapi("WebhookSecret");

export const DeliveriesQuerySchema = z.strictObject({
  limit: z
    .string()
    .regex(/^[0-9]{1,4}$/, "must be a whole number")
    .pipe(z.coerce.number<string>().int().min(1).max(LIST_MAX_LIMIT))
    .optional()
    .openapi({ description: `1-${LIST_MAX_LIMIT}, default 100.` }),
});

export const DeliverySchema = z
  .object({
    cursor: z.string().openapi({ description: "The event's cursor, as in the feed and the delivery body." }),
    type: z.enum(EVENT_TYPES).nullable(),
    status: z.enum(["pending", "delivered", "withheld"]).openapi({
      description: "`pending`: not yet answered with a 2xx (retried); `withheld`: the dataset left public view first, so it is never sent.",
    }),
    attempts: z.number().int(),
    response_code: z.number().int().nullable().openapi({ description: "The last attempt's HTTP status; null when none came." }),
    response_body: z.string().nullable().openapi({ description: "The first 256 bytes of the last failed answer; null after a 2xx, whose body is not read." }),
    error: z.string().nullable().openapi({ description: "Why the last attempt failed, when its status does not say." }),
    next_retry: z.string().nullable().openapi({ description: "When the next attempt is due, while pending." }),
    updated: z.string(),
  })
  .openapi("WebhookDelivery");

export const DeliveriesSchema = z.object({ results: z.array(DeliverySchema) }).openapi("WebhookDeliveries");

/** The body of every delivery (Standard Webhooks): for the OpenAPI `webhooks` section. */
export const DeliveryBodySchema = z
  .object({
    type: z.enum(EVENT_TYPES),
    timestamp: z.string().openapi({ description: "When the write committed." }),
    data: z.object({
      cursor: z.string(),
      type: z.enum(EVENT_TYPES),
      id: z.string(),
      version: z.string().nullable(),
      team: z.string().nullable(),
      occurred: z.string(),
    }),
  })
  .openapi("WebhookDeliveryBody");

/**
 * The delivery as an OpenAPI 3.1 webhook (`webhooks` in /openapi.json): what the service sends
 * to a webhook's URL, and what it takes as success.
 */
export const DELIVERY_WEBHOOK = {
  method: "post" as const,
  path: "dataset-event",
  summary: "A change event, delivered to a webhook's URL",
  description:
    "Standard Webhooks (standardwebhooks.com): `webhook-signature` holds `v1,<base64 HMAC-SHA256 of \"{webhook-id}.{webhook-timestamp}.{body}\">` keyed by the secret's bytes after `whsec_` (two, space-separated, for 24 h after a rotation). Answer with a 2xx within 10 s; anything else is retried with exponential backoff for up to 3 days, with the same `webhook-id`. Delivered at least once and not in commit order: an endpoint gets up to 6 requests at once, started oldest first, and a failed one is sent again with its retry after later ones; `data.cursor` is the commit order, by which a receiver orders. A failure stops its hand-over (up to 50 events) from starting more until the retry, which sends only what is undelivered.",
  request: {
    headers: z.object({
      "webhook-id": z.string().openapi({ description: "The same on every attempt of this event to this webhook: de-duplicate by it." }),
      "webhook-timestamp": z.string().openapi({ description: "The attempt's time, in seconds since the epoch." }),
      "webhook-signature": z.string().openapi({ description: "`v1,<base64>`, one or two, space-separated." }),
    }),
    body: { content: { "application/json": { schema: DeliveryBodySchema } } },
  },
  responses: {
    200: { description: "Any 2xx within 10 s: delivered" },
    default: { description: "Anything else, a redirect included: retried" },
  },
};
