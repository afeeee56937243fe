// Parameterised header values as multipart uses them: `Content-Type` (RFC 9110 §8.3.1,
// RFC 2045 §5.1) and `Content-Disposition` (RFC 6266 §4.1, RFC 7578 §4.2), plus the RFC 8187
// ext-value form of `filename*`. Lenient where real clients are, strict where a value is ambiguous.

export interface ParameterisedValue {
  /** The part before the first `;`, trimmed and lowercased (`multipart/form-data`, `form-data`). */
  value: string;
  /** Parameter names lowercased; values unquoted. */
  params: Map<string, string>;
}

/**
 * Splits `value *( OWS ";" OWS name "=" ( token / quoted-string ) )` (RFC 9110 §5.6.6).
 * Tolerates whitespace around `=` and unquoted values holding non-token characters (read up
 * to the next `;`). Returns null when a parameter name repeats, which would be ambiguous, or a
 * quoted string is unterminated. In quoted strings `\"` and `\\` are unescaped (RFC 9110 §5.6.4);
 * any other backslash is kept, so Windows paths sent unescaped survive.
 */
export function parseParameterised(input: string): ParameterisedValue | null {
  const semi = input.indexOf(";");
  const value = (semi < 0 ? input : input.slice(0, semi)).trim().toLowerCase();
  const params = new Map<string, string>();
  let i = semi < 0 ? input.length : semi + 1;
  while (i < input.length) {
    i = skipWhitespace(input, i);
    const eq = input.indexOf("=", i);
    const nextSemi = input.indexOf(";", i);
    if (eq < 0 || (nextSemi >= 0 && nextSemi < eq)) {
      // A parameter without `=` (or an empty one between two `;`) carries nothing: skip it.
      i = nextSemi < 0 ? input.length : nextSemi + 1;
      continue;
    }
    const name = input.slice(i, eq).trim().toLowerCase();
    i = skipWhitespace(input, eq + 1);
    let paramValue: string;
    if (input[i] === '"') {
      const quoted = readQuoted(input, i);
      if (quoted === null) return null;
      paramValue = quoted.text;
      i = quoted.end;
      const after = input.indexOf(";", i);
      i = after < 0 ? input.length : after + 1;
    } else {
      const end = input.indexOf(";", i);
      paramValue = input.slice(i, end < 0 ? input.length : end).trim();
      i = end < 0 ? input.length : end + 1;
    }
    if (name === "") continue;
    if (params.has(name)) return null;
    params.set(name, paramValue);
  }
  return { value, params };
}

function skipWhitespace(input: string, i: number): number {
  while (input[i] === " " || input[i] === "\t") i++;
  return i;
}

/** Reads a quoted-string starting at the opening quote; `end` is just past the closing one. */
function readQuoted(input: string, start: number): { text: string; end: number } | null {
  let text = "";
  let i = start + 1;
  while (i < input.length) {
    const c = input[i];
    if (c === '"') return { text, end: i + 1 };
    const next = input[i + 1];
    if (c === "\\" && (next === '"' || next === "\\")) {
      text += next;
      i += 2;
    } else {
      text += c;
      i++;
    }
  }
  return null;
}

/**
 * Decodes an RFC 8187 §3.2 ext-value (`UTF-8''na%C3%AFve.csv`, charset UTF-8 or ISO-8859-1,
 * language ignored). Returns null when it is not well formed, so the caller can fall back to
 * the plain parameter (RFC 6266 §4.3).
 */
export function decodeExtValue(input: string): string | null {
  const match = /^([A-Za-z0-9!#$%&+\-^_`{}~]+)'[A-Za-z0-9-]*'((?:%[0-9A-Fa-f]{2}|[A-Za-z0-9!#$&+\-.^_`|~])*)$/.exec(
    input,
  );
  if (!match) return null;
  const charset = (match[1] ?? "").toLowerCase();
  const encoded = match[2] ?? "";
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length; i++) {
    if (encoded[i] === "%") {
      bytes.push(parseInt(encoded.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(encoded.charCodeAt(i));
    }
  }
  if (charset === "iso-8859-1") return bytes.map((b) => String.fromCharCode(b)).join("");
  if (charset !== "utf-8") return null;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(new Uint8Array(bytes));
  } catch {
    return null;
  }
}
