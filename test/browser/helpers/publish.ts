// Creates datasets on a running server the way a client does: a multipart body signed with
// RFC 9421 (src/auth/sign.ts) under the server's demo key.
import { signRequest } from "../../../src/wire/sign.ts";
import type { E2eServer } from "../../node/helpers/shared-server.ts";

export interface Published {
  id: string;
  version: string;
  source: string;
}

export async function publish(server: E2eServer, collection: Record<string, unknown>, csv: string, fileName: string): Promise<Published> {
  return signedWrite(server, "POST", "/v1/dataset", collection, { csv, fileName }, 201);
}

/** A signed PUT of `collection` and, when given, new content; answers the new version's record. */
export async function update(server: E2eServer, id: string, collection: Record<string, unknown>, content?: { csv: string; fileName: string }): Promise<Published> {
  return signedWrite(server, "PUT", `/v1/dataset/${id}`, collection, content, 200);
}

async function signedWrite(
  server: E2eServer,
  method: "POST" | "PUT",
  path: string,
  collection: Record<string, unknown>,
  content: { csv: string; fileName: string } | undefined,
  status: number,
): Promise<Published> {
  const form = new FormData();
  form.append("collection", new Blob([JSON.stringify(collection)], { type: "application/json" }));
  if (content) form.append("dataset", new Blob([content.csv], { type: "text/csv" }), content.fileName);
  const url = `${server.url}${path}`;
  const draft = new Request(url, { method, body: form });
  const body = new Uint8Array(await draft.arrayBuffer());
  const headers = await signRequest(
    { method, url, headers: { "Content-Type": draft.headers.get("content-type") ?? "" }, body },
    { keyId: server.demoKey.key_id, secret: server.demoKey.secret },
  );
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  if (response.status !== status) throw new Error(`${method} ${path} failed: ${response.status} ${text}`);
  return JSON.parse(text) as Published;
}
