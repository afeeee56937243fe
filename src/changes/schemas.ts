// Request and response schemas of the change feed (docs/changes.md): they validate the query and
// describe the answer for the OpenAPI document.
import { z } from "@hono/zod-openapi";
import { LIST_MAX_LIMIT } from "../config.ts";
import { EVENT_TYPES } from "../model/change-events.ts";

/** The longest a `wait` may hold a request (docs/changes.md "Waiting"). */
export const MAX_WAIT_SECONDS = 25;

function queryInteger(min: number, max: number) {
  return z
    .string()
    .regex(/^[0-9]{1,16}$/, "must be a whole number")
    .pipe(z.coerce.number<string>().int().min(min).max(max));
}

export const ChangesQuerySchema = z.strictObject({
  since: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .openapi({ description: "An opaque cursor (`next` of an earlier answer): events after it. `now`: only events from now on. Absent: from the first event." }),
  limit: queryInteger(1, LIST_MAX_LIMIT).optional().openapi({ description: `1-${LIST_MAX_LIMIT}, default 100.` }),
  wait: queryInteger(0, MAX_WAIT_SECONDS)
    .optional()
    .openapi({ description: `0-${MAX_WAIT_SECONDS} seconds: when no event follows \`since\`, hold the request until one does, or until this runs out (then \`results\` is empty). Default 0.` }),
});

export const ChangeEventSchema = z
  .object({
    cursor: z.string().openapi({ description: "This event's position: `since` set to it reads the events after it." }),
    type: z.enum(EVENT_TYPES),
    id: z.string().openapi({ description: "The dataset's id." }),
    version: z.string().nullable().openapi({ description: "The version the write made; null for a delete and for `dataset.withdrawn`." }),
    team: z.string().nullable().openapi({ description: "The owning team; null for `dataset.withdrawn`, which carries the id only." }),
    occurred: z.string().openapi({ description: "When the write committed (ISO 8601, UTC)." }),
  })
  .openapi("ChangeEvent");

export const ChangesResponseSchema = z
  .object({
    results: z.array(ChangeEventSchema).openapi({ description: "Oldest first, in commit order." }),
    next: z.string().openapi({ description: "The cursor to send as `since` next: the last event's, or `since` itself when there was none." }),
  })
  .openapi("ChangeList");
