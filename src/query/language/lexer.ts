// Cuts `where` into tokens (docs/queries.md#grammar): names, double-quoted names, keywords in any
// case, numbers, single-quoted text and the operators. A character the language has no use for
// becomes an `error` token, reported by the parser when it reaches it, so the earliest problem wins.

export const KEYWORDS = ["AND", "OR", "NOT", "IN", "IS", "NULL", "LIKE", "ESCAPE", "TRUE", "FALSE"] as const;
export type Keyword = (typeof KEYWORDS)[number];
const KEYWORD_SET: ReadonlySet<string> = new Set(KEYWORDS);

export type Token =
  | { kind: "name"; text: string; start: number; end: number }
  | { kind: "quoted"; text: string; start: number; end: number }
  | { kind: "keyword"; keyword: Keyword; start: number; end: number }
  | { kind: "number"; text: string; start: number; end: number }
  | { kind: "text"; text: string; start: number; end: number }
  | { kind: "symbol"; text: string; start: number; end: number }
  | { kind: "end"; start: number; end: number }
  | { kind: "error"; expected: string; found: string; start: number; end: number };

const SYMBOLS = ["<=", ">=", "!=", "<>", "=", "<", ">", "(", ")", ","];

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

export function isNameStart(c: string | undefined): boolean {
  return c !== undefined && ((c >= "A" && c <= "Z") || (c >= "a" && c <= "z") || c === "_");
}

function isNamePart(c: string | undefined): boolean {
  return isNameStart(c) || isDigit(c);
}

function isSpace(c: string | undefined): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\r";
}

/** Whether `name` may be written bare: the name pattern and not a keyword. */
export function isBareName(name: string): boolean {
  if (!isNameStart(name[0]) || KEYWORD_SET.has(name.toUpperCase())) return false;
  for (const c of name) if (!isNamePart(c)) return false;
  return true;
}

/** A quoted run starting at `start` (the opening quote); `""` or `''` inside stands for one. */
function quoted(input: string, start: number, quote: string): { text: string; end: number } | null {
  let text = "";
  let i = start + 1;
  for (;;) {
    const next = input.indexOf(quote, i);
    if (next < 0) return null;
    text += input.slice(i, next);
    if (input[next + 1] !== quote) return { text, end: next + 1 };
    text += quote;
    i = next + 2;
  }
}

/** Digits, an optional fraction and exponent; a sign is taken only when a digit or `.` follows. */
function numberEnd(input: string, start: number): number {
  let i = start;
  if (input[i] === "+" || input[i] === "-") i++;
  const digitsStart = i;
  while (isDigit(input[i])) i++;
  if (input[i] === ".") {
    i++;
    while (isDigit(input[i])) i++;
  }
  if (i === digitsStart || (i === digitsStart + 1 && input[digitsStart] === ".")) return -1;
  if (input[i] === "e" || input[i] === "E") {
    let j = i + 1;
    if (input[j] === "+" || input[j] === "-") j++;
    if (!isDigit(input[j])) return -(j + 2);
    while (isDigit(input[j])) j++;
    i = j;
  }
  return i;
}

export function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (isSpace(c)) {
      i++;
      continue;
    }
    const start = i;
    if (isNameStart(c)) {
      while (isNamePart(input[i])) i++;
      const text = input.slice(start, i);
      const upper = text.toUpperCase();
      tokens.push(KEYWORD_SET.has(upper) ? { kind: "keyword", keyword: upper as Keyword, start, end: i } : { kind: "name", text, start, end: i });
      continue;
    }
    if (c === '"' || c === "'") {
      const run = quoted(input, start, c);
      if (run === null) {
        tokens.push({ kind: "error", expected: `a closing ${c}`, found: "end of input", start: input.length, end: input.length });
        return tokens;
      }
      tokens.push({ kind: c === '"' ? "quoted" : "text", text: run.text, start, end: run.end });
      i = run.end;
      continue;
    }
    if (isDigit(c) || c === "." || ((c === "-" || c === "+") && (isDigit(input[i + 1]) || input[i + 1] === "."))) {
      const end = numberEnd(input, start);
      if (end < -1) {
        const at = -end - 2;
        tokens.push({ kind: "error", expected: "digits of the exponent", found: at < input.length ? `"${input[at]}"` : "end of input", start: at, end: at });
        return tokens;
      }
      if (end > 0 && isNamePart(input[end])) {
        // `1and` or `12abc`: a name glued to a number is a typo, not two tokens.
        tokens.push({ kind: "error", expected: "a space, an operator or a parenthesis after a number", found: `"${input[end]}"`, start: end, end: end + 1 });
        return tokens;
      }
      if (end > 0) {
        tokens.push({ kind: "number", text: input.slice(start, end), start, end });
        i = end;
        continue;
      }
    }
    const symbol = SYMBOLS.find((s) => input.startsWith(s, start));
    if (symbol !== undefined) {
      tokens.push({ kind: "symbol", text: symbol === "<>" ? "!=" : symbol, start, end: start + symbol.length });
      i += symbol.length;
      continue;
    }
    const point = String.fromCodePoint(input.codePointAt(start)!);
    tokens.push({ kind: "error", expected: "a column, a literal, an operator or a parenthesis", found: `"${point}"`, start, end: start + point.length });
    return tokens;
  }
  tokens.push({ kind: "end", start: input.length, end: input.length });
  return tokens;
}
