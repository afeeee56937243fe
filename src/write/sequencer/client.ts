// The appender's side of the append sequencer (durable-object.ts): hands one validated append
// to its dataset's Durable Object and turns what comes back into a result or the ApiError the
// sequencer described (errors lose their fields over RPC, so problems cross as plain data).
import { noteBookmark } from "../../edge/d1-session.ts";
import { ApiError } from "../../model/errors.ts";
import type { QueuedAppend, QueuedOutcome } from "./queue.ts";
import type { AppendSequencer } from "./durable-object.ts";
import type { WriteAnswer, WriteResult } from "../write-types.ts";

export type AppendSequencerBinding = DurableObjectNamespace<AppendSequencer>;

/** `db`: the request's database, which notes the commit's bookmark (src/edge/d1-session.ts). */
export async function commitQueuedAppend(
  sequencers: AppendSequencerBinding,
  append: QueuedAppend,
  db?: D1Database,
): Promise<{ result: WriteResult; answer: WriteAnswer }> {
  const sequencer = sequencers.get(sequencers.idFromName(append.datasetId));
  const outcome = (await sequencer.commit(append)) as QueuedOutcome;
  if (outcome.ok) {
    if (db) noteBookmark(db, outcome.bookmark);
    return { result: outcome.result, answer: outcome.answer };
  }
  const { code, detail, extensions, headers } = outcome.problem;
  throw new ApiError(code, detail, extensions, headers);
}
