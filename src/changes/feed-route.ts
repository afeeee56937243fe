// GET /v1/changes — the change feed (docs/changes.md): events after an opaque cursor, oldest
// first, in commit order. Signed, the key's team's events; unsigned, the public view. Never
// stored by a cache: each answer depends on the moment it is asked.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { LIST_DEFAULT_LIMIT } from "../config.ts";
import { decodeChangeCursor, encodeChangeCursor, nextSinceLink } from "../http/cursor.ts";
import { problemResponse } from "../http/schemas.ts";
import { readPolicy, withPolicy } from "../edge/route-policy.ts";
import { newestSeq, readEvents, type ChangeEvent, type FeedView } from "./store.ts";
import { ChangesQuerySchema, ChangesResponseSchema } from "./schemas.ts";
import { waitForEvents } from "./wait.ts";

export const changesRoute = withPolicy(
  createRoute({
    method: "get",
    path: "/",
    summary: "Follow changes: the events after a cursor",
    description:
      "Signed: every event of the key's team's datasets. Unsigned: what a reader of public data may know — events of public versions of datasets public now (never a draft), and `dataset.withdrawn`, with the id only, where a dataset left public view.",
    request: { query: ChangesQuerySchema },
    responses: {
      200: {
        description: "Events after `since`, oldest first; `Link: rel=\"next\"` and `next` carry the cursor to ask with next.",
        content: { "application/json": { schema: ChangesResponseSchema } },
      },
      400: problemResponse("Invalid query, or a cursor this API did not issue"),
      401: problemResponse("Signature present but not valid"),
    },
  }),
  readPolicy("none", ["next"]),
);

function shape(event: ChangeEvent) {
  return {
    cursor: encodeChangeCursor(event.seq),
    type: event.type,
    id: event.datasetId,
    version: event.version,
    team: event.team,
    occurred: event.occurred,
  };
}

export function registerChanges(app: OpenAPIHono<AppEnv>): void {
  app.openapi(changesRoute, async (c) => {
    const query = c.req.valid("query");
    const caller = c.get("caller");
    const view: FeedView = caller === null ? null : { teamId: caller.teamId };
    const limit = query.limit ?? LIST_DEFAULT_LIMIT;
    const db = c.env.DB;
    const since = query.since === undefined ? 0 : query.since === "now" ? await newestSeq(db) : decodeChangeCursor(query.since);
    const read = () => readEvents(db, view, since, limit);
    let events = await read();
    if (events.length === 0 && (query.wait ?? 0) > 0) events = await waitForEvents(read, (query.wait ?? 0) * 1000, c.req.raw.signal);
    const next = encodeChangeCursor(events[events.length - 1]?.seq ?? since);
    c.header("Link", nextSinceLink(c.req.url, next));
    c.header("Cache-Control", "private, no-store");
    return c.json({ results: events.map(shape), next }, 200);
  });
}
