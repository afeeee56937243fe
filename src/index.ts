// Worker entry: the HTTP app. The scheduled clean-up joins it in a later change.
import { createApp } from "./app.ts";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
