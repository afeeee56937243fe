// RFC 8941 Structured Field Values, the part HTTP Message Signatures and Content-Digest use:
// Dictionaries of Items and Inner Lists with Parameters, parsed strictly into a tagged result.
// Serialisation lives in structured-fields-serialize.ts.

import { fromBase64 } from "./bytes.ts";

export type BareItem =
  | { type: "integer"; value: number }
  | { type: "decimal"; value: number }
  | { type: "string"; value: string }
  | { type: "token"; value: string }
  | { type: "bytes"; value: Uint8Array }
  | { type: "boolean"; value: boolean };

/** Ordered, as received. */
export type Parameters = Map<string, BareItem>;
export interface Item {
  kind: "item";
  value: BareItem;
  params: Parameters;
}
export interface InnerList {
  kind: "inner-list";
  items: Item[];
  params: Parameters;
}
export type Dictionary = Map<string, Item | InnerList>;
export type SfResult<T> = { ok: true; value: T } | { ok: false; error: string };

class SfSyntaxError extends Error {}

const KEY_START = /[a-z*]/;
const KEY_CHAR = /[a-z0-9_\-.*]/;
const TOKEN_START = /[A-Za-z*]/;
const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z:/]/;
const DIGIT = /[0-9]/;
const BASE64_CHARS = /^[A-Za-z0-9+/=]*$/;

/**
 * Parses a Dictionary field value (RFC 8941 §4.2.2). Stricter than the RFC in one way: a
 * repeated dictionary key or parameter key fails instead of the last one winning, because in
 * a signature header a repeat is ambiguous.
 */
export function parseDictionary(input: string): SfResult<Dictionary> {
  try {
    if (/[^\t\x20-\x7e]/.test(input)) throw new SfSyntaxError("non-printable or non-ASCII character");
    const parser = new Parser(input);
    const value = parser.dictionary();
    return { ok: true, value };
  } catch (error: unknown) {
    if (error instanceof SfSyntaxError) return { ok: false, error: error.message };
    throw error;
  }
}

class Parser {
  private pos = 0;
  private readonly input: string;
  constructor(input: string) {
    this.input = input;
  }

  dictionary(): Dictionary {
    const result: Dictionary = new Map();
    this.skip(" ");
    while (!this.done()) {
      const key = this.key();
      let member: Item | InnerList;
      if (this.peek() === "=") {
        this.pos++;
        member = this.peek() === "(" ? this.innerList() : this.item();
      } else {
        member = { kind: "item", value: { type: "boolean", value: true }, params: this.parameters() };
      }
      if (result.has(key)) throw new SfSyntaxError(`repeated key "${key}"`);
      result.set(key, member);
      this.skip(" \t");
      if (this.done()) return result;
      if (this.input[this.pos++] !== ",") throw new SfSyntaxError(`expected "," at ${this.pos - 1}`);
      this.skip(" \t");
      if (this.done()) throw new SfSyntaxError("trailing comma");
    }
    return result;
  }

  private innerList(): InnerList {
    this.pos++; // "("
    const items: Item[] = [];
    while (!this.done()) {
      this.skip(" ");
      if (this.peek() === ")") {
        this.pos++;
        return { kind: "inner-list", items, params: this.parameters() };
      }
      items.push(this.item());
      const next = this.peek();
      if (next !== " " && next !== ")") throw new SfSyntaxError(`expected " " or ")" at ${this.pos}`);
    }
    throw new SfSyntaxError("unterminated inner list");
  }

  private item(): Item {
    const value = this.bareItem();
    return { kind: "item", value, params: this.parameters() };
  }

  private parameters(): Parameters {
    const params: Parameters = new Map();
    while (this.peek() === ";") {
      this.pos++;
      this.skip(" ");
      const key = this.key();
      let value: BareItem = { type: "boolean", value: true };
      if (this.peek() === "=") {
        this.pos++;
        value = this.bareItem();
      }
      if (params.has(key)) throw new SfSyntaxError(`repeated parameter "${key}"`);
      params.set(key, value);
    }
    return params;
  }

  private key(): string {
    const start = this.pos;
    if (!KEY_START.test(this.peek())) throw new SfSyntaxError(`expected a key at ${start}`);
    while (KEY_CHAR.test(this.peek())) this.pos++;
    return this.input.slice(start, this.pos);
  }

  private bareItem(): BareItem {
    const c = this.peek();
    if (c === "-" || DIGIT.test(c)) return this.number();
    if (c === '"') return this.string();
    if (c === ":") return this.bytes();
    if (c === "?") return this.boolean();
    if (TOKEN_START.test(c)) return this.token();
    throw new SfSyntaxError(`expected an item at ${this.pos}`);
  }

  /** RFC 8941 §4.2.4 */
  private number(): BareItem {
    const start = this.pos;
    if (this.peek() === "-") this.pos++;
    if (!DIGIT.test(this.peek())) throw new SfSyntaxError(`expected a digit at ${this.pos}`);
    const digitsStart = this.pos;
    let dot = -1;
    while (!this.done()) {
      const c = this.peek();
      if (DIGIT.test(c)) this.pos++;
      else if (c === "." && dot < 0) {
        if (this.pos - digitsStart > 12) throw new SfSyntaxError("decimal integer part too long");
        dot = this.pos++;
      } else break;
      if (this.pos - digitsStart > (dot < 0 ? 15 : 16)) throw new SfSyntaxError("number too long");
    }
    const text = this.input.slice(start, this.pos);
    if (dot < 0) return { type: "integer", value: Number.parseInt(text, 10) };
    const fraction = this.pos - dot - 1;
    if (fraction < 1 || fraction > 3) throw new SfSyntaxError("decimal needs 1 to 3 fraction digits");
    return { type: "decimal", value: Number.parseFloat(text) };
  }

  /** RFC 8941 §4.2.5 */
  private string(): BareItem {
    this.pos++; // opening quote
    let value = "";
    while (!this.done()) {
      const c = this.input[this.pos++] ?? "";
      if (c === '"') return { type: "string", value };
      if (c === "\\") {
        const escaped = this.input[this.pos++];
        if (escaped !== '"' && escaped !== "\\") throw new SfSyntaxError("invalid escape in string");
        value += escaped;
      } else if (c === "\t") throw new SfSyntaxError("tab in string");
      else value += c;
    }
    throw new SfSyntaxError("unterminated string");
  }

  /** RFC 8941 §4.2.6 */
  private token(): BareItem {
    const start = this.pos++;
    while (TOKEN_CHAR.test(this.peek())) this.pos++;
    return { type: "token", value: this.input.slice(start, this.pos) };
  }

  /** RFC 8941 §4.2.7 */
  private bytes(): BareItem {
    const end = this.input.indexOf(":", this.pos + 1);
    if (end < 0) throw new SfSyntaxError("unterminated byte sequence");
    const text = this.input.slice(this.pos + 1, end);
    const value = BASE64_CHARS.test(text) ? fromBase64(text) : null;
    if (value === null) throw new SfSyntaxError("invalid base64 in byte sequence");
    this.pos = end + 1;
    return { type: "bytes", value };
  }

  /** RFC 8941 §4.2.8 */
  private boolean(): BareItem {
    const c = this.input[this.pos + 1];
    if (c !== "0" && c !== "1") throw new SfSyntaxError("invalid boolean");
    this.pos += 2;
    return { type: "boolean", value: c === "1" };
  }

  private peek(): string {
    return this.input[this.pos] ?? "";
  }

  private done(): boolean {
    return this.pos >= this.input.length;
  }

  private skip(chars: string): void {
    while (!this.done() && chars.includes(this.peek())) this.pos++;
  }
}
