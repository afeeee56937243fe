// A DNS-over-HTTPS server on 127.0.0.1 for the workerd tests (vitest.config.ts starts it and
// points DOH_URL at it): it answers RFC 8484 GET and POST requests in application/dns-message,
// encoded and decoded by the dns-packet package, not by our own code, from a zone the tests
// set. This machine has no resolver of its own to ask.
//
// PUT /zone/NAME {"A"?: [...], "AAAA"?: [...], "CNAME"?: "target", "rcode"?: 2, "status"?: 503,
// "delayMs"?: 6000} sets what NAME answers (a CNAME's target answers from the zone too); a name
// not set answers NXDOMAIN. GET /queries/NAME lists the queries for NAME, oldest first.
import { createServer, type IncomingMessage, type Server } from "node:http";
import dnsPacket from "dns-packet";
import { listenOnLoopback } from "./webhook-receiver.ts";

export interface ZoneEntry {
  A?: string[];
  AAAA?: string[];
  CNAME?: string;
  /** An RCODE to answer with instead (RFC 1035 §4.1.1: 2 SERVFAIL, 3 NXDOMAIN, 5 REFUSED). */
  rcode?: number;
  /** An HTTP status to answer with instead of a DNS message. */
  status?: number;
  delayMs?: number;
}

export interface LoggedQuery {
  type: string;
  method: string;
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startDohResponder(): Promise<{ origin: string; server: Server }> {
  const zone = new Map<string, ZoneEntry>();
  const queries = new Map<string, LoggedQuery[]>();

  function records(name: string, type: "A" | "AAAA", depth = 0): dnsPacket.Answer[] {
    const entry = zone.get(name);
    if (!entry || depth > 8) return [];
    if (entry.CNAME) return [{ type: "CNAME", name, ttl: 60, data: entry.CNAME }, ...records(entry.CNAME, type, depth + 1)];
    return (entry[type] ?? []).map((data) => ({ type, name, ttl: 60, data }));
  }

  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      const [, kind = "", name = ""] = url.pathname.split("/");
      if (request.method === "PUT" && kind === "zone") {
        zone.set(name.toLowerCase(), JSON.parse((await bodyOf(request)).toString("utf8")) as ZoneEntry);
        response.writeHead(204).end();
        return;
      }
      if (request.method === "GET" && kind === "queries") {
        response.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(queries.get(name.toLowerCase()) ?? []));
        return;
      }
      if (kind !== "dns-query") {
        response.writeHead(404).end();
        return;
      }
      // RFC 8484 §4.1: GET carries the message base64url-encoded in `dns`, POST as the body.
      const wire = request.method === "POST" ? await bodyOf(request) : Buffer.from(url.searchParams.get("dns") ?? "", "base64url");
      let query: dnsPacket.DecodedPacket;
      try {
        query = dnsPacket.decode(wire);
      } catch {
        response.writeHead(400).end();
        return;
      }
      const question = query.questions?.[0];
      if (!question || (question.type !== "A" && question.type !== "AAAA")) {
        response.writeHead(400).end();
        return;
      }
      const asked = question.name.toLowerCase();
      const log = queries.get(asked) ?? [];
      log.push({ type: question.type, method: request.method ?? "" });
      queries.set(asked, log);
      const entry = zone.get(asked);
      if (entry?.delayMs) await new Promise((resolve) => setTimeout(resolve, entry.delayMs));
      if (entry?.status) {
        response.writeHead(entry.status, { "Content-Type": "text/plain" }).end("no");
        return;
      }
      const rcode = entry ? (entry.rcode ?? 0) : 3;
      const answer = dnsPacket.encode({
        type: "response",
        id: query.id ?? 0,
        flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | rcode,
        questions: [question],
        answers: rcode === 0 ? records(asked, question.type) : [],
      });
      response.writeHead(200, { "Content-Type": "application/dns-message", "Content-Length": answer.length }).end(answer);
    })().catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  return listenOnLoopback(server);
}
