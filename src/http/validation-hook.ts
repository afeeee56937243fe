// zod-openapi's defaultHook: validation failures of path and query input leave as our problem
// details (400 invalid_query for the query string, 400 invalid_request otherwise), worded by
// issue-words.ts. A route may add advice after an unknown query parameter.
import type { Hook } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { describeIssue, type Issue } from "./issue-words.ts";
import { ApiError } from "../model/errors.ts";

/** A route's advice for the unknown query parameter `name`, given with `value`. */
export type UnknownParameterHint = (name: string, value: string | undefined) => string;

// Shared by routes of every input type, hence the unknown data type.
type AnyHook = Hook<unknown, AppEnv, string, undefined>;

function hookWith(hint: UnknownParameterHint | null): AnyHook {
  return (result, c) => {
    if (result.success) return;
    const issue: Issue | undefined = result.error.issues[0];
    const query = result.target === "query";
    if (!issue) throw new ApiError(query ? "invalid_query" : "invalid_request", "invalid");
    if (!query) throw new ApiError("invalid_request", describeIssue(issue, "field"));
    const first = issue.path[0];
    const timesGiven = typeof first === "string" ? (c.req.queries(first)?.length ?? 0) : 1;
    let detail = describeIssue(issue, "query parameter", { timesGiven });
    const unknown = issue.code === "unrecognized_keys" ? issue.keys?.[0] : undefined;
    if (hint && unknown !== undefined) detail += `; ${hint(unknown, c.req.query(unknown))}`;
    throw new ApiError("invalid_query", detail);
  };
}

export const validationHook: AnyHook = hookWith(null);

/**
 * validationHook, with `hint` after the first unknown query parameter. Generic so that a route
 * passing it to `app.openapi` keeps its own input types.
 */
export function validationHookWith<I, P extends string, R>(hint: UnknownParameterHint): Hook<I, AppEnv, P, R> {
  return hookWith(hint) as Hook<I, AppEnv, P, R>;
}
