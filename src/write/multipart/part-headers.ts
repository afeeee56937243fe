// The header section of one form-data part (RFC 7578 §4.2, §4.4, §4.7; field syntax of
// RFC 5322 §2.2): which field it carries, its file name and its media type, read from the
// parameterised values multipart uses (`Content-Type`, RFC 9110 §8.3.1; `Content-Disposition`,
// RFC 6266 §4.1; the RFC 8187 ext-value of `filename*`). Lenient where real clients are, strict
// where a value is ambiguous. Also the one error the parser raises for malformed input, with an
// enumerated reason so a route maps every case to `invalid_request` without reading message
// text; errors from the source stream are never wrapped in it.

export type MultipartErrorReason =
  /** The body ended before any `--boundary` line was seen. */
  | "missing_boundary"
  /** A boundary not followed by `--` or by optional padding and CRLF (RFC 2046 §5.1.1). */
  | "garbled_boundary"
  /** A part without `Content-Disposition: form-data; name="…"` (RFC 7578 §4.2). */
  | "invalid_disposition"
  /** A header line that is not `name: value`, a repeated Content-Disposition, or a
   * Content-Transfer-Encoding other than an identity one (RFC 7578 §4.7). */
  | "malformed_header"
  /** A part's header section (or the padding after its boundary) is longer than allowed. */
  | "headers_too_long"
  /** The body ended before the close delimiter `--boundary--`. */
  | "unexpected_end"
  /** More parts than allowed. */
  | "too_many_parts"
  /** The part body was abandoned: the iterator moved past it or was closed before it was read. */
  | "cancelled";

export class MultipartError extends Error {
  readonly reason: MultipartErrorReason;

  constructor(reason: MultipartErrorReason, message: string) {
    super(message);
    this.name = "MultipartError";
    this.reason = reason;
  }
}

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

export interface PartHeaders {
  /** The `name` parameter of `Content-Disposition: form-data` (RFC 7578 §4.2). */
  name: string;
  /** `filename*` (RFC 8187) when present and decodable, else `filename`; null when neither. */
  fileName: string | null;
  /** The part's Content-Type as sent; null when absent (RFC 7578 §4.4 then implies text/plain). */
  contentType: string | null;
  /** `type/subtype` of `contentType`, lowercased, without parameters; null when absent or unparsable. */
  mediaType: string | null;
}

const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const MEDIA_TYPE = /^[!#$%&'*+\-.^_`|~0-9a-z]+\/[!#$%&'*+\-.^_`|~0-9a-z]+$/;
const IDENTITY_ENCODINGS = new Set(["7bit", "8bit", "binary"]);

/**
 * Parses the header lines of a part: `bytes` holds them without the blank line that ends the
 * section. Field values are read as UTF-8, which is how browsers send non-ASCII field and file
 * names (RFC 7578 §5.1). Folded lines (obs-fold, RFC 5322 §3.2.2) are unfolded.
 */
export function parsePartHeaders(bytes: Uint8Array): PartHeaders {
  const text = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true }).decode(bytes);
  const fields = new Map<string, string>();
  for (const line of unfold(text)) {
    const colon = line.indexOf(":");
    const name = colon < 0 ? "" : line.slice(0, colon).toLowerCase();
    if (!FIELD_NAME.test(name) || /[\r\n\0]/.test(line)) {
      throw new MultipartError("malformed_header", "a part header line is not `name: value`");
    }
    const value = line.slice(colon + 1).trim();
    if (fields.has(name)) {
      if (name === "content-disposition" || name === "content-type") {
        throw new MultipartError("malformed_header", `a part repeats ${name}`);
      }
      continue;
    }
    fields.set(name, value);
  }

  const encoding = fields.get("content-transfer-encoding");
  if (encoding !== undefined && !IDENTITY_ENCODINGS.has(encoding.toLowerCase())) {
    throw new MultipartError("malformed_header", "Content-Transfer-Encoding is not supported");
  }

  const disposition = parseParameterised(fields.get("content-disposition") ?? "");
  const name = disposition?.params.get("name");
  if (disposition === null || disposition.value !== "form-data" || name === undefined) {
    throw new MultipartError("invalid_disposition", 'a part lacks Content-Disposition: form-data; name="…"');
  }
  const extended = disposition.params.get("filename*");
  const decoded = extended === undefined ? null : decodeExtValue(extended);
  const fileName = decoded ?? disposition.params.get("filename") ?? null;

  const contentType = fields.get("content-type") ?? null;
  const mediaType = contentType === null ? null : (parseParameterised(contentType)?.value ?? null);
  return {
    name,
    fileName,
    contentType,
    mediaType: mediaType !== null && MEDIA_TYPE.test(mediaType) ? mediaType : null,
  };
}

/** Splits on CRLF and joins continuation lines (those starting with SP or HTAB) to the previous. */
function unfold(text: string): string[] {
  const lines: string[] = [];
  if (text === "") return lines;
  for (const line of text.split("\r\n")) {
    const previous = lines.length - 1;
    if ((line.startsWith(" ") || line.startsWith("\t")) && previous >= 0) {
      lines[previous] += ` ${line.trim()}`;
    } else {
      lines.push(line);
    }
  }
  return lines;
}
