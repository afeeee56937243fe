// The answer of each write (SPEC A's exact field sets, B1's status and Location), built in one
// place: the route sends it, and the commit stores the same bytes for Idempotency-Key replays,
// also when the commit happens in the append sequencer.
import { appendedRecord, createdRecord, updatedRecord } from "./shapes.ts";
import type { WriteAnswer, WriteResult } from "./write-types.ts";

export function createAnswer({ dataset, version }: WriteResult): WriteAnswer<ReturnType<typeof createdRecord>> {
  return { status: 201, location: `/v1/dataset/${dataset.id}`, body: createdRecord(dataset, version) };
}

export function updateAnswer({ dataset, version }: WriteResult): WriteAnswer<ReturnType<typeof updatedRecord>> {
  return { status: 200, location: null, body: updatedRecord(dataset, version) };
}

export function appendAnswer({ dataset, version }: WriteResult): WriteAnswer<ReturnType<typeof appendedRecord>> {
  return { status: 201, location: `/v1/dataset/${dataset.id}/${version.id}`, body: appendedRecord(dataset, version) };
}
