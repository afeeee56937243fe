// Checks on a client's JSON right after JSON.parse, without recursion, so no later step meets
// such a value:
// - depth: a document 6,000 levels deep fits in a few kilobytes, and every recursive walk of it
//   later (JSON.stringify for the answer, the stored row, the metadata documents) can overflow
//   the stack;
// - strings: a `\uD800` escape parses to a lone surrogate, which is not Unicode text and cannot
//   be stored or served as UTF-8 as sent; a `\u0000` is a NUL that no page or document shows.

/** Levels of objects and arrays a client's JSON value may nest; `{}` is one level, `{"a": []}` two. */
export const MAX_JSON_DEPTH = 32;

/**
 * The path of the first object or array nested deeper than `maxDepth` levels, or null when
 * there is none. `value` itself is level 1: `{"a": {"b": 1}}` has two levels.
 */
export function pathDeeperThan(value: unknown, maxDepth: number): string[] | null {
  const stack: Array<{ value: unknown; depth: number; path: string[] }> = [{ value, depth: 1, path: [] }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (typeof next.value !== "object" || next.value === null) continue;
    if (next.depth > maxDepth) return next.path;
    for (const [key, child] of Object.entries(next.value)) {
      if (typeof child === "object" && child !== null) stack.push({ value: child, depth: next.depth + 1, path: [...next.path, key] });
    }
  }
  return null;
}

/** True for text that is not well-formed Unicode (a lone surrogate) or holds a NUL. */
export function isUnsafeText(text: string): boolean {
  return /\p{Cs}|\u0000/u.test(text);
}

/** The path of the first string (key or value) in `value` that `isUnsafeText`, or null. */
export function pathOfUnsafeText(value: unknown): string[] | null {
  const stack: Array<{ value: unknown; path: string[] }> = [{ value, path: [] }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (typeof next.value === "string") {
      if (isUnsafeText(next.value)) return next.path;
      continue;
    }
    if (typeof next.value !== "object" || next.value === null) continue;
    for (const [key, child] of Object.entries(next.value)) {
      if (isUnsafeText(key)) return [...next.path, key];
      stack.push({ value: child, path: [...next.path, key] });
    }
  }
  return null;
}
