// The OpenAPI document's front matter: what the API is and how to sign requests, so the
// interactive reference explains the scheme without sending readers elsewhere.

export const API_TITLE = "pubset";
export const API_VERSION = "1.0.0";

export const API_DESCRIPTION = `Versioned CSV datasets. Every write makes an immutable version; anyone reads the public ones; writes are signed.

## Signing requests (RFC 9421, hmac-sha256)

A key is \`(key_id, secret)\`, tied to one team and one user; the HMAC key is the secret's ASCII bytes.
Writes must be signed; reads may be (then they see the key team's private datasets too).

1. With a body, send \`Content-Digest: sha-256=:<base64 SHA-256 of the body>:\` (RFC 9530).
2. Build the signature base (RFC 9421 §2.5): one line per covered component,
   \`"@method"\`, \`"@authority"\`, \`"@path"\`, \`"@query"\` when the URL has a query string, \`"content-digest"\` when there is a body,
   and each of \`"content-type"\`, \`"if-match"\`, \`"idempotency-key"\`, \`"upload-complete"\`, \`"upload-offset"\`, \`"upload-length"\` the request carries (RFC 9421 §7.2.1),
   then \`"@signature-params": (…);created=<unix seconds>;keyid="<key_id>";nonce="<random>"\`.
3. Send \`Signature-Input: sig1=(…);created=…;keyid="…";nonce="…"\` and \`Signature: sig1=:<base64 HMAC-SHA256(secret, base)>:\`.

\`created\` must be within ±300 s of the server clock; a nonce is single use per key for 10 minutes (required on writes).
A request whose signature fails gets 401 — it is never served as anonymous.

## Errors

Every error is \`application/problem+json\` (RFC 9457) with a stable \`code\`; see the \`Problem\` schema.`;
