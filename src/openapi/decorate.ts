// Adds to the generated OpenAPI document what middleware, not routes, decides: the RFC 9421
// signature headers, Idempotency-Key and If-Match on writes, caching and paging headers on
// reads, and the problem responses every operation can give. What applies to an operation is
// its route's declared policy (src/edge/route-policy.ts). Routes stay thin; the document stays
// complete.
import { PROBLEMS } from "../model/errors.ts";
import type { LinkRelation, RoutePolicy, RouteTable } from "../edge/route-policy.ts";
import { ERROR_CACHE_CONTROL, IMMUTABLE_CACHE_CONTROL, MUTABLE_CACHE_CONTROL, PRIVATE_CACHE_CONTROL } from "../edge/cache-control.ts";

type Json = Record<string, unknown>;

const problemRef = { $ref: "#/components/schemas/Problem" };
const problem = (description: string) => ({ description, content: { "application/problem+json": { schema: problemRef } } });

function header(name: string, description: string, required = false, example?: string): Json {
  return { name, in: "header", required, description, schema: { type: "string", ...(example ? { example } : {}) } };
}

const SIGNATURE_HEADERS = (required: boolean) => [
  header("Signature-Input", "RFC 9421 signature parameters, e.g. `sig1=(\"@method\" \"@authority\" \"@path\" \"content-digest\");created=…;keyid=\"…\";nonce=\"…\"`.", required),
  header("Signature", "RFC 9421 signature: `sig1=:<base64 HMAC-SHA256>:`.", required),
];

const responseHeaders = {
  ETag: { description: "Strong entity tag; send it back in If-None-Match for a 304.", schema: { type: "string" } },
  "Cache-Control": {
    description:
      `Unsigned reads of public data: \`${IMMUTABLE_CACHE_CONTROL}\` on paths that name a version id, \`${MUTABLE_CACHE_CONTROL}\` on \`latest\` paths and lists; signed, private or \`X-D1-Bookmark\` reads: \`${PRIVATE_CACHE_CONTROL}\`; errors: \`${ERROR_CACHE_CONTROL}\`.`,
    schema: { type: "string" },
  },
  Link: { description: 'Present when more results exist: `<…&cursor=…>; rel="next"`.', schema: { type: "string" } },
  "Link (record)": {
    description: 'The version\'s gzip content, the `source` of create/update: `</v1/dataset/{id}/{version}/{file}.gz>; rel="enclosure"; type="application/gzip"`.',
    schema: { type: "string" },
  },
  "Link (download)": {
    description: 'The version\'s Data Package, which describes the file (docs/column-types.md): `</v1/dataset/{id}/{version}/datapackage.json>; rel="describedby"; type="application/json"`.',
    schema: { type: "string" },
  },
  Location: { description: "The created dataset or version (or the upload resource, after `Upload-Complete: ?0`).", schema: { type: "string" } },
  "X-D1-Bookmark": {
    description: "The newest D1 bookmark the request saw (on responses no shared cache keeps). Send it back on later requests to read your own writes from any read replica.",
    schema: { type: "string" },
  },
  "RateLimit-Policy": { description: 'draft-ietf-httpapi-ratelimit-headers-11 quota policy, e.g. `"anonymous";q=300;w=60`.', schema: { type: "string" } },
  RateLimit: { description: 'draft-ietf-httpapi-ratelimit-headers-11 remaining quota, e.g. `"anonymous";r=287;t=42` (an estimate; see docs/edge-and-caching.md, "Rate limits").', schema: { type: "string" } },
};

function addParameters(operation: Json, parameters: Json[]): void {
  const existing = (operation.parameters as Json[] | undefined) ?? [];
  operation.parameters = [...existing, ...parameters];
}

function addResponseHeaders(response: Json | undefined, names: Array<keyof typeof responseHeaders>): void {
  if (!response) return;
  const headers = (response.headers as Json | undefined) ?? {};
  // "Link (record)" documents the same header name with the record's meaning.
  for (const name of names) headers[name.replace(/ \(.*\)$/, "")] = responseHeaders[name];
  response.headers = headers;
}

const LINK_HEADERS: Record<LinkRelation, keyof typeof responseHeaders> = {
  next: "Link",
  enclosure: "Link (record)",
  describedby: "Link (download)",
};

/**
 * draft-ietf-httpbis-resumable-upload-15 §4.2: the same request with `Upload-Complete: ?0` and
 * a JSON description instead of the multipart body creates an upload resource (docs/resumable-uploads.md).
 */
function addUploadCreation(operation: Json, responses: Record<string, Json>): void {
  addParameters(operation, [
    header("Upload-Complete", "`?0`: start a resumable upload instead (body: `UploadCreation` JSON; answer: 201 with the upload's Location). Absent or `?1`: the whole multipart write in this request."),
  ]);
  const body = (operation.requestBody as Json | undefined) ?? {};
  const content = (body.content as Json | undefined) ?? {};
  content["application/json"] = { schema: { $ref: "#/components/schemas/UploadCreation" } };
  body.content = content;
  operation.requestBody = body;
  const created = responses["201"] ?? { description: "" };
  created.description = `${String(created.description)}. With \`Upload-Complete: ?0\`: the upload resource was created; \`Location\` names it, \`Upload-Limit\` says its limits, no body.`;
  responses["201"] = created;
}

function decorateOperation(method: string, policy: RoutePolicy, operation: Json): void {
  const responses = (operation.responses as Record<string, Json>) ?? {};
  const isWrite = policy.signed;
  addParameters(operation, SIGNATURE_HEADERS(isWrite));
  addParameters(operation, [header("X-D1-Bookmark", "A bookmark from an earlier response: this request reads data at least that fresh (and is answered `private, no-store`).")]);
  if (isWrite) {
    addParameters(operation, [
      header("Content-Digest", "RFC 9530 digest of the body, covered by the signature: `sha-256=:<base64>:` (sha-512 also accepted).", method !== "delete"),
      header("Idempotency-Key", "Replays the first response for 24 h when the same request is sent again (`Idempotent-Replayed: true`)."),
    ]);
    if (policy.uploads === "start") addUploadCreation(operation, responses);
    if (policy.ifMatch) {
      addParameters(operation, [header("If-Match", "`\"<version>\"`: write only if that is still the latest version, else 412.", false, '"<version>"')]);
    }
    responses["401"] ??= problem("Not signed, or the signature, key, nonce or digest is not valid");
    responses["409"] ??= problem("Concurrent write with the same Idempotency-Key, or too many concurrent writers");
  } else {
    addParameters(operation, [header("If-None-Match", "An ETag from an earlier response; 304 when it still matches.")]);
    addResponseHeaders(responses["200"], ["ETag", "Cache-Control", ...policy.links.map((relation) => LINK_HEADERS[relation])]);
    responses["304"] ??= { description: "Not modified (If-None-Match matched)" };
    responses["401"] ??= problem("A signature was sent and does not verify");
  }
  addResponseHeaders(responses["201"], ["Location", "X-D1-Bookmark"]);
  addResponseHeaders(responses["200"], ["RateLimit-Policy", "RateLimit", ...(isWrite ? (["X-D1-Bookmark"] as const) : [])]);
  responses["429"] ??= problem("Over the rate limit (`rate_limited`); `Retry-After` says when to try again");
  responses["500"] ??= problem("A bug on our side; the request changed nothing");
  operation.responses = responses;
}

/** Mutates and returns the generated document; every API operation must have a declared policy. */
export function decorateDocument<T extends object>(document: T, routes: RouteTable): T {
  const doc = document as Json;
  const paths = (doc.paths as Record<string, Record<string, Json>>) ?? {};
  for (const [path, item] of Object.entries(paths)) {
    // Only the API is signed, cached by ETag and answers problems; the pages (pages.ts) are not.
    if (!path.startsWith("/v1/")) continue;
    for (const [method, operation] of Object.entries(item)) {
      const policy = routes.forOperation(method, path);
      if (!policy) throw new Error(`${method.toUpperCase()} ${path} declares no route policy (src/edge/route-policy.ts)`);
      decorateOperation(method, policy, operation);
    }
  }
  const components = (doc.components as Json) ?? {};
  const schemas = (components.schemas as Json) ?? {};
  schemas.Problem = {
    type: "object",
    description: "RFC 9457 problem details. Clients switch on `code`.",
    required: ["type", "title", "status", "detail", "code"],
    properties: {
      type: { type: "string", description: "`/problems/<code>`" },
      title: { type: "string" },
      status: { type: "integer" },
      detail: { type: "string" },
      code: { type: "string", enum: Object.keys(PROBLEMS) },
      row: { type: "integer", description: "CSV errors: the record number (1-based, header included on create)." },
      expected: { type: "integer", description: "CSV errors: the expected field count." },
      found: { type: "integer", description: "CSV errors: the field count found." },
      separator: { type: "string", enum: [";", "\t"], description: "CSV errors: the separator the content looks split by instead of commas." },
      limit: { type: "string", description: "413: which limit was exceeded." },
      max: { type: "integer", description: "413: the limit's value." },
      offset: { type: "integer", description: "409 `mismatching_upload_offset`: the upload's offset, where to resume (also in `Upload-Offset`)." },
    },
    additionalProperties: true,
  };
  components.schemas = schemas;
  doc.components = components;
  return document;
}
