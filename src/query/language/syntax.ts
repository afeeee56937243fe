// The parsed `where` before it meets a schema (docs/queries.md#grammar): what the parser builds
// and typing.ts checks. Every node keeps the UTF-16 index it starts at, so a typing error can
// name its position. The limits of the language live here too.

/** `where` is at most this many bytes of UTF-8. */
export const MAX_WHERE_BYTES = 4096;
/** Parentheses and NOT nest at most this deep, so parsing and evaluation never run out of stack. */
export const MAX_NESTING = 64;
/** A number literal's exponent stays within ±this, so exact arithmetic on it stays small. */
export const MAX_EXPONENT = 1000;

export type CompareOp = "=" | "!=" | "<" | "<=" | ">" | ">=";

export type Literal =
  | { kind: "number"; text: string; start: number }
  | { kind: "text"; value: string; start: number }
  | { kind: "boolean"; value: boolean; start: number };

export interface ColumnRef {
  name: string;
  start: number;
}

export type Expr =
  | { kind: "and" | "or"; items: Expr[] }
  | { kind: "not"; item: Expr }
  | { kind: "compare"; column: ColumnRef; op: CompareOp; opStart: number; literal: Literal }
  | { kind: "in"; column: ColumnRef; literals: Literal[]; negated: boolean }
  | { kind: "null"; column: ColumnRef; negated: boolean }
  | { kind: "like"; column: ColumnRef; pattern: Literal & { kind: "text" }; escape: (Literal & { kind: "text" }) | null; negated: boolean };
