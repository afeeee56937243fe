// Worker entry: the HTTP app, and the scheduled clean-up the cron in wrangler.toml runs.
import { createApp } from "./app.ts";
import { runCleanup } from "./maintenance/cleanup.ts";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(controller, env) {
    await runCleanup(env, controller.scheduledTime);
  },
} satisfies ExportedHandler<Env>;
