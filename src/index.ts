// Worker entry: the HTTP app, the two crons of wrangler.toml (the purge and webhook drains every
// minute, the clean-up every 30 minutes), the consumers of work after commits and of webhook
// deliveries (Queues), and the per-dataset append sequencer (a Durable Object).
import { createApp } from "./app.ts";
import { limitsFrom, mergePolicyFrom, storageTimingsFrom } from "./config.ts";
import { PURGE_CRON, runPurgeDrain } from "./edge/purge-outbox.ts";
import { consumeAfterCommit } from "./maintenance/after-commit.ts";
import { runCleanup } from "./maintenance/cleanup.ts";
import { consumeWebhookBatch } from "./changes/webhooks/consumer.ts";
import { drainOutbox, sweepOverdue } from "./changes/webhooks/drain.ts";

/** The queue wrangler.toml names for webhook deliveries; every other batch (AFTER_COMMIT, TWINS) is after-commit work. */
const WEBHOOKS_QUEUE = "pubset-webhooks";

// Besides the default handlers, only Durable Object classes may be exported here: workerd
// refuses any other named export of the entry module.
export { AppendSequencer } from "./write/sequencer/durable-object.ts";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(controller: ScheduledController, env: Env, ctx?: ExecutionContext) {
    if (controller.cron === PURGE_CRON) {
      await runPurgeDrain(env, ctx?.cache, controller.scheduledTime);
      // The webhook drain's backstop: events whose after-commit drain died, and lost messages.
      await drainOutbox(env);
      await sweepOverdue(env);
    } else await runCleanup(env, controller.scheduledTime);
  },
  async queue(batch: MessageBatch<unknown>, env: Env) {
    if (batch.queue === WEBHOOKS_QUEUE) {
      await consumeWebhookBatch(batch, env);
      return;
    }
    const limits = limitsFrom(env);
    await consumeAfterCommit(batch, env, mergePolicyFrom(limits), storageTimingsFrom(limits));
  },
} satisfies ExportedHandler<Env>;
