// The body every version-writing route shares (create, append, update): a request that asks for
// a resumable upload gets its creation answer (docs/resumable-uploads.md); any other runs the write
// protocol (src/write/write.ts) and answers what it committed.
import type { Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import { startUpload } from "../uploads/start.ts";
import { writeVersion, type WriteAnswer, type WriteKind, type WriteResult } from "./write.ts";
import { sendAnswer, writeRequest } from "./write-context.ts";

export async function answerWrite<Body extends object, Status extends WriteAnswer["status"]>(
  c: Context<AppEnv>,
  kind: WriteKind,
  datasetId: string,
  answer: (result: WriteResult) => WriteAnswer<Body>,
  status: Status,
) {
  const upload = await startUpload(c, kind, datasetId);
  // A resumable upload's creation answers 201 with no body, outside the route's typed responses.
  if (upload) return upload as never;
  const { answer: committed } = await writeVersion(c.env, writeRequest(c, kind, datasetId, answer));
  return sendAnswer(c, committed, status);
}
