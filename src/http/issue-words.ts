// The one wording of a failed zod validation in a problem's `detail` (docs/api.md "Errors"): the
// first issue, named by its path, in the API's words. zod's defaults name its own types and
// operators ("Too big: expected number to be <=1000"); a message a schema gives itself (a
// `.regex` or `.refine`) is kept as written.

/** The parts of a zod issue the wording reads (zod's `$ZodIssue`). */
export interface Issue {
  code: string;
  path: readonly PropertyKey[];
  message: string;
  expected?: unknown;
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  inclusive?: boolean;
  keys?: readonly string[];
  values?: readonly unknown[];
}

export type IssuePlace = "query parameter" | "field";

function bound(issue: Issue, atLeast: boolean): string {
  const limit = atLeast ? issue.minimum : issue.maximum;
  if (atLeast && issue.origin === "string" && Number(limit) === 1 && issue.inclusive !== false) return "must not be empty";
  const words = issue.inclusive === false ? (atLeast ? "more than" : "less than") : atLeast ? "at least" : "at most";
  const unit = issue.origin === "string" ? " character" : issue.origin === "array" ? " item" : "";
  return `${words} ${String(limit)}${unit}${unit !== "" && Number(limit) !== 1 ? "s" : ""}`;
}

const ARTICLE: Record<string, string> = { array: "an array", object: "an object", int: "a whole number", integer: "a whole number" };

/** What the issue asks for, without its path. */
function requirement(issue: Issue, place: IssuePlace): string {
  switch (issue.code) {
    case "unrecognized_keys": {
      const keys = issue.keys ?? [];
      return `unknown ${place}${keys.length === 1 ? "" : "s"} ${keys.map((key) => JSON.stringify(key)).join(", ")}`;
    }
    case "too_small":
      return bound(issue, true);
    case "too_big":
      return bound(issue, false);
    case "invalid_type":
      return typeof issue.expected === "string" ? `must be ${ARTICLE[issue.expected] ?? `a ${issue.expected}`}` : issue.message;
    case "invalid_value":
      return issue.values && issue.values.length > 0 ? `must be ${issue.values.length === 1 ? "" : "one of "}${issue.values.map((v) => JSON.stringify(v)).join(", ")}` : issue.message;
    default:
      return issue.message;
  }
}

/**
 * One sentence for an issue. `scope` names what holds the fields (`collection` for a form
 * part's JSON). `timesGiven` counts a query parameter's values: given twice, it reaches the
 * schema as an array, which zod would call the wrong type.
 */
export function describeIssue(issue: Issue, place: IssuePlace, { scope, timesGiven = 1 }: { scope?: string; timesGiven?: number } = {}): string {
  const name = [...(scope === undefined ? [] : [scope]), ...issue.path.map(String)].join(".");
  if (timesGiven > 1) return `${name}: given ${timesGiven} times; give it once`;
  const words = requirement(issue, place);
  return name === "" ? words : `${name}: ${words}`;
}
