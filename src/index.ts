// Worker entry: the HTTP app, the scheduled clean-up the cron in wrangler.toml runs, and the
// per-dataset append sequencer (a Durable Object).
import { createApp } from "./app.ts";
import { runCleanup } from "./maintenance/cleanup.ts";

export { AppendSequencer } from "./datasets/append-sequencer.ts";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(controller, env) {
    await runCleanup(env, controller.scheduledTime);
  },
} satisfies ExportedHandler<Env>;
