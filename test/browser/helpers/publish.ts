// Creates datasets on a running server the way a client does: a multipart body signed with
// RFC 9421 (src/auth/sign.ts) under the server's demo key.
import { signRequest } from "../../../src/auth/sign.ts";
import type { RunningServer } from "../../node/helpers/server.ts";

export interface Published {
  id: string;
  version: string;
  source: string;
}

export async function publish(server: RunningServer, collection: Record<string, unknown>, csv: string, fileName: string): Promise<Published> {
  const form = new FormData();
  form.append("collection", new Blob([JSON.stringify(collection)], { type: "application/json" }));
  form.append("dataset", new Blob([csv], { type: "text/csv" }), fileName);
  const url = `${server.url}/v1/dataset`;
  const draft = new Request(url, { method: "POST", body: form });
  const body = new Uint8Array(await draft.arrayBuffer());
  const headers = await signRequest(
    { method: "POST", url, headers: { "Content-Type": draft.headers.get("content-type") ?? "" }, body },
    { keyId: server.demoKey.key_id, secret: server.demoKey.secret },
  );
  const response = await fetch(url, { method: "POST", headers, body });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${text}`);
  return JSON.parse(text) as Published;
}
