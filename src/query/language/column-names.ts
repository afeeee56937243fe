// Column names in `columns`, `order` and `where` (docs/queries.md#columns-and-order): looked up
// in the version's Table Schema exactly (names are case-sensitive), with the nearest name
// suggested when one is close; and the comma-separated lists of `columns` and `order`.
import type { TableSchema } from "../../schema/table-schema.ts";
import { failure, queryError, quoteFound, type QueryParameter, type Result } from "./query-error.ts";

/** The name closest to `name`: the same in another case, or within two edits. */
export function nearestName(names: readonly string[], name: string): string | undefined {
  const lower = name.toLowerCase();
  const sameLetters = names.find((candidate) => candidate.toLowerCase() === lower);
  if (sameLetters !== undefined) return sameLetters;
  let best: string | undefined;
  // A longer name may be further off and still be recognisable: within 2 edits from 4 letters, 1 from 2.
  let bestDistance = name.length >= 4 ? 3 : name.length >= 2 ? 2 : 1;
  for (const candidate of names) {
    if (Math.abs(candidate.length - name.length) >= bestDistance || candidate.length > 64 || name.length > 64) continue;
    const distance = editDistance(candidate.toLowerCase(), lower);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

/** The index of the field `name` in `schema`, or an error at `start` (a UTF-16 index of `input`). */
export function resolveColumn(schema: TableSchema, parameter: QueryParameter, input: string, start: number, name: string): Result<number> {
  const index = schema.fields.findIndex((field) => field.name === name);
  if (index >= 0) return { ok: true, value: index };
  const near = nearestName(
    schema.fields.map((field) => field.name),
    name,
  );
  return failure(queryError(parameter, input, start, "a column of this version", `column ${quoteFound(name)}`, near === undefined ? undefined : `did you mean ${quoteFound(near)}?`));
}

export interface ListedName {
  name: string;
  /** UTF-16 index where the item starts (at the `-` of a descending order). */
  start: number;
  /** UTF-16 index of the name itself (its opening quote when quoted). */
  nameStart: number;
  descending: boolean;
}

/**
 * Splits a `columns` or `order` value at commas: a name is bare (spaces around it dropped) or
 * double-quoted with `""` inside; in `order`, a `-` before it means descending.
 */
export function listNames(parameter: QueryParameter, input: string): Result<ListedName[]> {
  const names: ListedName[] = [];
  let i = 0;
  const skipSpaces = () => {
    while (input[i] === " " || input[i] === "\t") i++;
  };
  for (;;) {
    skipSpaces();
    const start = i;
    const descending = parameter === "order" && input[i] === "-";
    if (descending) {
      i++;
      skipSpaces();
    }
    const nameStart = i;
    let name: string;
    if (input[i] === '"') {
      name = "";
      for (;;) {
        const close = input.indexOf('"', i + 1);
        if (close < 0) return failure(queryError(parameter, input, input.length, 'a closing "', "end of input"));
        name += input.slice(i + 1, close);
        i = close + 1;
        if (input[i] !== '"') break;
        name += '"';
      }
      skipSpaces();
    } else {
      const comma = input.indexOf(",", i);
      const end = comma < 0 ? input.length : comma;
      name = input.slice(i, end).replace(/[ \t]+$/, "");
      if (name.includes('"')) return failure(queryError(parameter, input, i + name.indexOf('"'), "a name without a double quote (or one wholly in double quotes)", "a double quote"));
      i = end;
    }
    if (name === "" && input[nameStart] !== '"') return failure(queryError(parameter, input, nameStart, "a column name", i < input.length ? '","' : "end of input"));
    names.push({ name, start, nameStart, descending });
    if (i >= input.length) return { ok: true, value: names };
    if (input[i] !== ",") return failure(queryError(parameter, input, i, '"," or end of input', quoteFound(input.slice(i, i + 1))));
    i++;
  }
}
