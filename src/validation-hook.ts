// zod-openapi's defaultHook: validation failures of path and query input leave as our problem
// details (400 invalid_query for the query string, 400 invalid_request otherwise), worded by
// http/issue-words.ts.
import type { Hook } from "@hono/zod-openapi";
import type { AppEnv } from "./app-env.ts";
import { describeIssue, type Issue } from "./http/issue-words.ts";
import { ApiError } from "./model/errors.ts";

// The hook is shared by routes of every input type, hence the unknown data type.
export const validationHook: Hook<unknown, AppEnv, string, void> = (result, c) => {
  if (result.success) return;
  const issue: Issue | undefined = result.error.issues[0];
  const query = result.target === "query";
  const first = issue?.path[0];
  const timesGiven = query && typeof first === "string" ? (c.req.queries(first)?.length ?? 0) : 1;
  const detail = issue ? describeIssue(issue, query ? "query parameter" : "field", { timesGiven }) : "invalid";
  throw new ApiError(query ? "invalid_query" : "invalid_request", detail);
};
