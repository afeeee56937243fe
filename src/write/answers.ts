// The answer of each write (docs/api.md: the exact field sets, the status and Location), built in one
// place: the route sends it, and the commit stores the same bytes for Idempotency-Key replays,
// also when the commit happens in the append sequencer. Each is called before the commit, so
// a body that cannot be serialised fails a write that changed nothing.
import { appendedRecord, createdRecord, updatedRecord } from "../read/shapes.ts";
import type { WriteAnswer, WriteResult } from "./write-types.ts";

function answer<Body extends object>(status: 200 | 201, location: string | null, body: Body): WriteAnswer<Body> {
  return { status, location, body, json: JSON.stringify(body) };
}

export function createAnswer({ dataset, version }: WriteResult): WriteAnswer<ReturnType<typeof createdRecord>> {
  return answer(201, `/v1/dataset/${dataset.id}`, createdRecord(dataset, version));
}

export function updateAnswer({ dataset, version }: WriteResult): WriteAnswer<ReturnType<typeof updatedRecord>> {
  return answer(200, null, updatedRecord(dataset, version));
}

export function appendAnswer({ dataset, version }: WriteResult): WriteAnswer<ReturnType<typeof appendedRecord>> {
  return answer(201, `/v1/dataset/${dataset.id}/${version.id}`, appendedRecord(dataset, version));
}

/** An answer as a commit stores it (an upload's outcome): flat strings, so storing cannot fail. */
export function answerToStore(answer: WriteAnswer): string {
  return JSON.stringify({ status: answer.status, location: answer.location, json: answer.json });
}

/** An answer stored by `answerToStore` (or, before it, with its `body`), read back for a replay. */
export function storedAnswer(text: string): WriteAnswer {
  const stored = JSON.parse(text) as { status: 200 | 201; location: string | null; json?: string; body?: object };
  const json = stored.json ?? JSON.stringify(stored.body ?? {});
  return { status: stored.status, location: stored.location, body: stored.body ?? (JSON.parse(json) as object), json };
}
