// Parses `where` into a syntax tree by precedence climbing (docs/queries.md#grammar): NOT binds
// tighter than AND, AND tighter than OR, both left-associative; a predicate (column, operator,
// literal) binds tightest. No eval, no regular expressions: every error names its position.
import { tokenize, type Token } from "./lexer.ts";
import { END_OF_INPUT, failure, queryError, quoteFound, shortText, type QueryError, type Result } from "./query-error.ts";
import { MAX_NESTING, MAX_WHERE_BYTES, type ColumnRef, type CompareOp, type Expr, type Literal } from "./syntax.ts";

const BINARY: Record<string, { precedence: number; kind: "and" | "or" }> = {
  OR: { precedence: 1, kind: "or" },
  AND: { precedence: 2, kind: "and" },
};
const COMPARE_OPS: ReadonlySet<string> = new Set(["=", "!=", "<", "<=", ">", ">="]);
const PREDICATE = 'an operator (=, !=, <, <=, >, >=, IN, NOT IN, IS, LIKE or NOT LIKE)';
const LITERAL = "a literal (a number, 'text', true or false)";

class ParseFailure {
  readonly error: QueryError;
  constructor(error: QueryError) {
    this.error = error;
  }
}

class Parser {
  private readonly tokens: Token[];
  private index = 0;
  private depth = 0;
  private readonly input: string;

  constructor(input: string) {
    this.input = input;
    this.tokens = tokenize(input);
  }

  private peek(): Token {
    const token = this.tokens[this.index]!;
    if (token.kind === "error") this.fail(token, token.expected, token.found);
    return token;
  }

  private advance(): Token {
    const token = this.peek();
    if (token.kind !== "end") this.index++;
    return token;
  }

  private describe(token: Token): string {
    if (token.kind === "end") return END_OF_INPUT;
    const text = this.input.slice(token.start, token.end);
    return token.kind === "text" ? shortText(text) : quoteFound(text);
  }

  private fail(token: Token, expected: string, found = this.describe(token), hint?: string): never {
    throw new ParseFailure(queryError("where", this.input, token.start, expected, found, hint));
  }

  private isKeyword(token: Token, keyword: string): boolean {
    return token.kind === "keyword" && token.keyword === keyword;
  }

  private isSymbol(token: Token, symbol: string): boolean {
    return token.kind === "symbol" && token.text === symbol;
  }

  private enter(token: Token): void {
    if (++this.depth > MAX_NESTING) this.fail(token, `at most ${MAX_NESTING} levels of parentheses and NOT`);
  }

  parseAll(): Expr {
    const expr = this.expression(0);
    const token = this.peek();
    if (token.kind !== "end") this.fail(token, this.isSymbol(token, ")") ? 'AND, OR or end of input (this ")" closes nothing)' : "AND, OR or end of input");
    return expr;
  }

  /** An expression whose binary operators all bind at least as tightly as `minPrecedence`. */
  private expression(minPrecedence: number): Expr {
    let left = this.operand();
    for (;;) {
      const token = this.peek();
      const binary = token.kind === "keyword" ? BINARY[token.keyword] : undefined;
      if (binary === undefined || binary.precedence < minPrecedence) return left;
      this.advance();
      const right = this.expression(binary.precedence + 1);
      // AND and OR are associative: chains (parenthesised or not) become one node of many items.
      const items = [...(left.kind === binary.kind ? left.items : [left]), ...(right.kind === binary.kind ? right.items : [right])];
      left = { kind: binary.kind, items };
    }
  }

  private operand(): Expr {
    const token = this.advance();
    if (this.isKeyword(token, "NOT")) {
      this.enter(token);
      const item = this.operand();
      this.depth--;
      return { kind: "not", item };
    }
    if (this.isSymbol(token, "(")) {
      this.enter(token);
      const inner = this.expression(0);
      const close = this.peek();
      if (!this.isSymbol(close, ")")) this.fail(close, 'AND, OR or ")"');
      this.advance();
      this.depth--;
      return inner;
    }
    if (token.kind === "name" || token.kind === "quoted") return this.predicate({ name: token.text, start: token.start });
    if (token.kind === "keyword" && token.keyword !== "TRUE" && token.keyword !== "FALSE") this.fail(token, "a column, NOT or \"(\"", undefined, `${token.keyword} is a keyword; write a column of that name in double quotes`);
    return this.fail(token, 'a column, NOT or "("');
  }

  private literal(after: string): Literal {
    const token = this.advance();
    if (token.kind === "number") return { kind: "number", text: token.text, start: token.start };
    if (token.kind === "text") return { kind: "text", value: token.text, start: token.start };
    if (token.kind === "keyword" && (token.keyword === "TRUE" || token.keyword === "FALSE")) return { kind: "boolean", value: token.keyword === "TRUE", start: token.start };
    if (this.isKeyword(token, "NULL")) this.fail(token, `${LITERAL}${after}`, undefined, "test for a missing cell with IS NULL");
    return this.fail(token, `${LITERAL}${after}`);
  }

  private predicate(column: ColumnRef): Expr {
    const token = this.advance();
    if (token.kind === "symbol" && COMPARE_OPS.has(token.text)) {
      const op = token.text as CompareOp;
      return { kind: "compare", column, op, opStart: token.start, literal: this.literal(` after "${op}"`) };
    }
    if (this.isKeyword(token, "IS")) {
      const negated = this.isKeyword(this.peek(), "NOT");
      if (negated) this.advance();
      const next = this.advance();
      if (!this.isKeyword(next, "NULL")) this.fail(next, negated ? "NULL after IS NOT" : "NULL or NOT NULL after IS");
      return { kind: "null", column, negated };
    }
    let negated = false;
    let operator = token;
    if (this.isKeyword(token, "NOT")) {
      negated = true;
      operator = this.advance();
      if (!this.isKeyword(operator, "IN") && !this.isKeyword(operator, "LIKE")) this.fail(operator, "IN or LIKE after NOT");
    }
    if (this.isKeyword(operator, "IN")) return { kind: "in", column, literals: this.list(), negated };
    if (this.isKeyword(operator, "LIKE")) return this.like(column, negated);
    return this.fail(token, PREDICATE);
  }

  private list(): Literal[] {
    const open = this.advance();
    if (!this.isSymbol(open, "(")) this.fail(open, '"(" after IN');
    const literals = [this.literal("")];
    for (;;) {
      const token = this.advance();
      if (this.isSymbol(token, ")")) return literals;
      if (!this.isSymbol(token, ",")) this.fail(token, '"," or ")"');
      literals.push(this.literal(' after ","'));
    }
  }

  private like(column: ColumnRef, negated: boolean): Expr {
    const pattern = this.advance();
    if (pattern.kind !== "text") this.fail(pattern, "a pattern in single quotes after LIKE");
    let escape: (Literal & { kind: "text" }) | null = null;
    if (this.isKeyword(this.peek(), "ESCAPE")) {
      this.advance();
      const token = this.advance();
      if (token.kind !== "text") this.fail(token, "an escape character in single quotes after ESCAPE");
      escape = { kind: "text", value: token.text, start: token.start };
    }
    return { kind: "like", column, pattern: { kind: "text", value: pattern.text, start: pattern.start }, escape, negated };
  }
}

/** The UTF-16 index where `input` passes `MAX_WHERE_BYTES` of UTF-8, or -1 within it. */
function overLimit(input: string): number {
  let bytes = 0;
  for (let i = 0; i < input.length; i++) {
    const unit = input.charCodeAt(i);
    bytes += unit < 0x80 ? 1 : unit < 0x800 ? 2 : unit >= 0xd800 && unit <= 0xdbff ? 4 : unit >= 0xdc00 && unit <= 0xdfff ? 0 : 3;
    if (bytes > MAX_WHERE_BYTES) return i;
  }
  return -1;
}

/** Parses `where`; an empty or blank `where` is an error, as it says nothing (omit the parameter instead). */
export function parseWhere(input: string): Result<Expr> {
  const over = overLimit(input);
  if (over >= 0) return failure(queryError("where", input, over, `at most ${MAX_WHERE_BYTES} bytes of UTF-8`, "a longer where"));
  try {
    return { ok: true, value: new Parser(input).parseAll() };
  } catch (error: unknown) {
    if (error instanceof ParseFailure) return failure(error.error);
    throw error;
  }
}
