// The header section of one form-data part (RFC 7578 §4.2, §4.4, §4.7; field syntax of
// RFC 5322 §2.2): which field it carries, its file name and its media type. Other header
// fields are ignored, as RFC 7578 §4.8 allows.

import { MultipartError } from "./error.ts";
import { decodeExtValue, parseParameterised } from "./params.ts";

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
