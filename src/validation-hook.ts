// zod-openapi's defaultHook: validation failures of path and query input leave as our problem
// details (400 invalid_query for the query string, 400 invalid_request otherwise).
import type { Hook } from "@hono/zod-openapi";
import type { AppEnv } from "./app-env.ts";
import { ApiError } from "./model/errors.ts";

// The hook is shared by routes of every input type, hence the unknown data type.
export const validationHook: Hook<unknown, AppEnv, string, void> = (result) => {
  if (result.success) return;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  const message = issue?.message ?? "invalid";
  if (result.target === "query") throw new ApiError("invalid_query", `${where}${message}`);
  throw new ApiError("invalid_request", `${where}${message}`);
};
