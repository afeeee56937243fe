// Worker entry: the HTTP app, the two crons of wrangler.toml (the purge drain every minute,
// the clean-up every 30 minutes), and the per-dataset append sequencer (a Durable Object).
import { createApp } from "./app.ts";
import { runPurgeDrain } from "./edge/purge-outbox.ts";
import { runCleanup } from "./maintenance/cleanup.ts";

export { AppendSequencer } from "./datasets/append-sequencer.ts";

/** Must match the first cron in wrangler.toml: one drain a minute keeps within the purge budget. */
export const PURGE_CRON = "* * * * *";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(controller: ScheduledController, env: Env, ctx?: ExecutionContext) {
    if (controller.cron === PURGE_CRON) await runPurgeDrain(env, ctx?.cache, controller.scheduledTime);
    else await runCleanup(env, controller.scheduledTime);
  },
} satisfies ExportedHandler<Env>;
