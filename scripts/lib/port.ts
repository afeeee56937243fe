// `npm start` checks its port before anything else: wrangler would only find it taken after
// the migrations and the banner, and then fail about 30 s later.
import { createServer } from "node:net";
import { UsageError } from "./cli-errors.ts";

/** Resolves when `port` on 127.0.0.1 can be listened on; a UsageError naming the fix otherwise. */
export function assertPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EADDRINUSE" && error.code !== "EACCES") return reject(error);
      const why = error.code === "EADDRINUSE" ? "is already in use (is another `npm start` running?)" : "may not be used by this user";
      reject(new UsageError(`port ${port} on 127.0.0.1 ${why}; stop that server or pick another port: PORT=${port === 8787 ? 8788 : port + 1} npm start`));
    });
    probe.listen({ port, host: "127.0.0.1", exclusive: true }, () => probe.close(() => resolve()));
  });
}
