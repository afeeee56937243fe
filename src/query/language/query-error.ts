// Errors of the query language as values (docs/queries.md#errors): where in the parameter the
// problem is, what was expected there and what was found, so a route can answer 400
// invalid_query with a `detail` a person can act on. Positions are 1-based and count code points.

/** The query parameters the language reads. */
export type QueryParameter = "where" | "columns" | "order";

export interface QueryError {
  parameter: QueryParameter;
  /** 1-based, in Unicode code points of the decoded parameter; length + 1 is its end. */
  position: number;
  expected: string;
  found: string;
  /** One sentence: `where, at character 12: expected a literal after "=", found end of input`. */
  detail: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: QueryError };

export const END_OF_INPUT = "end of input";

/** How many code points `text` holds before the UTF-16 index `index`. */
export function codePointPosition(text: string, index: number): number {
  let count = 0;
  for (let i = 0; i < index && i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point: count it at its second unit.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) continue;
    }
    count++;
  }
  return count + 1;
}

/** `text` cut to at most 24 code points, for `found`. */
export function shortText(text: string): string {
  const points = [...text];
  return points.length > 24 ? `${points.slice(0, 24).join("")}…` : text;
}

/** What stands at a place, in double quotes, for `found`. */
export function quoteFound(text: string): string {
  return `"${shortText(text)}"`;
}

/** An error at the UTF-16 index `index` of `input`; `hint` ends the sentence when given. */
export function queryError(parameter: QueryParameter, input: string, index: number, expected: string, found: string, hint?: string): QueryError {
  const position = codePointPosition(input, index);
  const detail = `${parameter}, at character ${position}: expected ${expected}, found ${found}${hint ? ` (${hint})` : ""}.`;
  return { parameter, position, expected, found, detail };
}

export function failure<T>(error: QueryError): Result<T> {
  return { ok: false, error };
}
