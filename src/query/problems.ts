// The query language's errors as the one error model (docs/api.md#errors): 400 invalid_query
// carrying which parameter, the position and what was expected and found.
import { ApiError } from "../model/errors.ts";
import type { QueryError } from "./language/query-error.ts";

export function queryProblem(error: QueryError): ApiError {
  return new ApiError("invalid_query", error.detail, { parameter: error.parameter, position: error.position, expected: error.expected, found: error.found });
}
