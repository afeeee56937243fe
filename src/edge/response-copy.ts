// Rebuilding a Response must not re-encode its body. workerd compresses a body whose headers say
// `Content-Encoding: gzip` unless the Response was made with `encodeBody: "manual"`, and that
// option is not carried over by `new Response(body, response)`: a copy of a response whose body
// is already gzip would be sent gzip inside gzip.

/** A mutable copy of `response` whose body bytes go out exactly as they are. */
export function copyResponse(response: Response, body: BodyInit | null = response.body): Response {
  const encoded = response.headers.has("Content-Encoding");
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: new Headers(response.headers),
    ...(encoded ? { encodeBody: "manual" as const } : {}),
  });
}
