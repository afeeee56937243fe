// Worker entry: the HTTP app, the two crons of wrangler.toml (the purge drain every minute,
// the clean-up every 30 minutes), the consumer of work after commits (a Queue), and the
// per-dataset append sequencer (a Durable Object).
import { createApp } from "./app.ts";
import { limitsFrom, mergePolicyFrom, storageTimingsFrom } from "./config.ts";
import { PURGE_CRON, runPurgeDrain } from "./edge/purge-outbox.ts";
import { consumeAfterCommit } from "./maintenance/after-commit.ts";
import { runCleanup } from "./maintenance/cleanup.ts";

// Besides the default handlers, only Durable Object classes may be exported here: workerd
// refuses any other named export of the entry module.
export { AppendSequencer } from "./write/sequencer/durable-object.ts";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(controller: ScheduledController, env: Env, ctx?: ExecutionContext) {
    if (controller.cron === PURGE_CRON) await runPurgeDrain(env, ctx?.cache, controller.scheduledTime);
    else await runCleanup(env, controller.scheduledTime);
  },
  async queue(batch: MessageBatch<unknown>, env: Env) {
    const limits = limitsFrom(env);
    await consumeAfterCommit(batch, env, mergePolicyFrom(limits), storageTimingsFrom(limits));
  },
} satisfies ExportedHandler<Env>;
