// A webhook receiver on 127.0.0.1 for the workerd tests (vitest.config.ts starts it): the real
// queue consumer delivers to it over HTTP, and a test asks it what arrived. Each path is its own
// receiver: `/ok/NAME` answers 204, `/fail/NAME` 500 with a 300-byte body, `/redirect/NAME`
// 302 to `/ok/NAME`, `/slow/NAME` 204 after 12 s, `/flaky/NAME` 503 until POST `/heal/NAME`,
// then 204, `/breaking/NAME` 204 to its first two requests, then as `/flaky/NAME`. GET `/received/NAME` lists what NAME received, oldest first.
import { createServer, type Server } from "node:http";

export interface Received {
  headers: Record<string, string>;
  body: string;
  at: number;
}

export async function startWebhookReceiver(): Promise<{ origin: string; server: Server }> {
  const received = new Map<string, Received[]>();
  const healed = new Set<string>();
  const server = createServer((request, response) => {
    const [, kind = "", name = ""] = (request.url ?? "/").split("/");
    if (request.method === "GET" && kind === "received") {
      response.writeHead(200, { "Content-Type": "application/json" });
      response.end(JSON.stringify(received.get(name) ?? []));
      return;
    }
    if (request.method === "POST" && kind === "heal") {
      healed.add(name);
      response.writeHead(204);
      response.end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [header, value] of Object.entries(request.headers)) if (typeof value === "string") headers[header] = value;
      const list = received.get(name) ?? [];
      list.push({ headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
      received.set(name, list);
      if (kind === "fail") {
        response.writeHead(500, { "Content-Type": "text/plain" });
        response.end("x".repeat(300));
      } else if ((kind === "flaky" || (kind === "breaking" && list.length > 2)) && !healed.has(name)) {
        response.writeHead(503, { "Content-Type": "text/plain" });
        response.end("down");
      } else if (kind === "slow") {
        setTimeout(() => {
          response.writeHead(204);
          response.end();
        }, 12_000);
      } else if (kind === "redirect") {
        response.writeHead(302, { Location: `/ok/${name}` });
        response.end();
      } else {
        response.writeHead(204);
        response.end();
      }
    });
  });
  return listenOnLoopback(server);
}

/** Listens on a free port of 127.0.0.1, never keeping the test process alive on its own. */
export async function listenOnLoopback(server: Server): Promise<{ origin: string; server: Server }> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  server.unref();
  return { origin: `http://127.0.0.1:${port}`, server };
}
