// The RFC 9421 signature base: the exact text an HTTP message signature covers, built from a
// request's derived components and header fields. Shared by the verifier and the signer so
// both sides can never disagree about it.

import type { InnerList } from "./structured-fields.ts";
import { serializeInnerList, serializeItem } from "./structured-fields-serialize.ts";

/** The parts of a request a signature can cover; a Fetch `Request` satisfies it. */
export interface SignableRequest {
  method: string;
  url: string;
  headers: Headers;
}

export type ComponentResult = { ok: true; value: string } | { ok: false; error: string };

const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;

/**
 * Value of a request-side derived component, RFC 9421 §2.2.1–§2.2.7; null for a name that
 * is not one (`@status` and `@query-param`, which need parameters, are not supported).
 */
export function derivedComponentValue(name: string, method: string, url: URL): string | null {
  switch (name) {
    case "@method":
      return method;
    case "@target-uri": {
      const target = new URL(url.href);
      target.hash = "";
      return target.href;
    }
    case "@authority":
      // The WHATWG URL parser already lowercases the host and drops a default port (§2.2.3).
      return url.host;
    case "@scheme":
      return url.protocol.slice(0, -1).toLowerCase();
    case "@request-target":
      return url.pathname + url.search;
    case "@path":
      return url.pathname === "" ? "/" : url.pathname;
    case "@query":
      // An absent or empty query is the lone "?" (§2.2.7).
      return url.search === "" ? "?" : url.search;
    default:
      return null;
  }
}

/**
 * Value of one component identifier (without parameters) for a request: a derived component,
 * or an HTTP field per RFC 9421 §2.1 (all values of the field, trimmed, joined with ", ").
 */
export function componentValue(request: SignableRequest, name: string, url: URL): ComponentResult {
  if (name.startsWith("@")) {
    const value = derivedComponentValue(name, request.method, url);
    return value === null ? { ok: false, error: `unsupported derived component "${name}"` } : { ok: true, value };
  }
  if (!FIELD_NAME.test(name)) return { ok: false, error: `invalid field name "${name}"` };
  const raw = request.headers.get(name);
  if (raw === null) return { ok: false, error: `covered field "${name}" is missing` };
  // Fetch Headers store each value trimmed and get() joins repeats with ", ", which is
  // exactly the §2.1 canonical form; trim() only guards hand-built inputs.
  return { ok: true, value: raw.trim() };
}

/**
 * The signature base for `covered` (the parsed Signature-Input member, with its parameters),
 * RFC 9421 §2.5. Fails on a repeated, unsupported, non-lowercase or missing component.
 */
export function signatureBase(request: SignableRequest, covered: InnerList): ComponentResult {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return { ok: false, error: "request URL is not absolute" };
  }
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const item of covered.items) {
    if (item.value.type !== "string") return { ok: false, error: "component identifiers must be strings" };
    const name = item.value.value;
    if (item.params.size > 0) return { ok: false, error: `component parameters are not supported ("${name}")` };
    if (name !== name.toLowerCase()) return { ok: false, error: `component "${name}" is not lowercase` };
    if (name === "@signature-params") return { ok: false, error: `"@signature-params" cannot be covered` };
    if (seen.has(name)) return { ok: false, error: `component "${name}" is repeated` };
    seen.add(name);
    const value = componentValue(request, name, url);
    if (!value.ok) return value;
    lines.push(`${serializeItem(item)}: ${value.value}`);
  }
  lines.push(`"@signature-params": ${serializeInnerList(covered)}`);
  return { ok: true, value: lines.join("\n") };
}
