// The client's resilience against a real `npm start` over HTTP: 429/503 retries (Retry-After as
// seconds and as an HTTP-date, also answered before the upload was read) through a scripted proxy
// in front of the worker, the retry budget running out, 412 from a stale If-Match,
// `list({ owner })` across keys (its own server: it needs the state directory to make keys), and
// the non-streaming ("browser") upload path. The proxy keeps the client's Host, so the worker
// verifies the RFC 9421 signature over the same @authority the client signed (its host:port).
import { createHash } from "node:crypto";
import { createServer, request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAllBytes } from "../../src/client/byte-streams.ts";
import { PubsetClient, PubsetError, type DatasetListItem, type SigningKey } from "../../src/client/index.ts";
import { runScript } from "./helpers/run-script.ts";
import { startServer, type DemoKey, type RunningServer } from "./helpers/server.ts";

/** A reply the proxy gives itself instead of forwarding. */
interface Step {
  status: 429 | 503;
  /** The Retry-After value, computed when the reply is sent (absent: no header). */
  retryAfter?: () => string;
  /** Answer at once, before the request body is read, and close the connection. */
  early?: boolean;
}

interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Date.now() when the request head arrived. */
  arrived: number;
  /** Date.now() when the proxy had sent its own reply (0 for forwarded requests). */
  answered: number;
  /** What the client got: the scripted status, or the worker's. */
  status: number;
  forwarded: boolean;
  retryAfter: string | null;
  bodyBytes: number;
  bodySha256: string;
}

interface Proxy {
  url: string;
  seen: Seen[];
  /** Replies for the next requests, in order; once empty, requests go to the worker. */
  plan: Step[];
  /** Send the worker's own host:port as Host instead of the client's (to show it matters). */
  rewriteHost: boolean;
  close(): Promise<void>;
}

// Hop-by-hop fields (RFC 9110 §7.6.1) stay on their own connection; Node frames each side itself.
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"]);

function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

/** Counts and hashes the bytes passing through, unchanged. */
function tap(record: Seen): Transform {
  const hash = createHash("sha256");
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      record.bodyBytes += chunk.length;
      done(null, chunk);
    },
    flush(done) {
      record.bodySha256 = hash.digest("hex");
      done();
    },
  });
}

function problemBody(status: number): string {
  const code = status === 429 ? "rate_limited" : "service_unavailable";
  return JSON.stringify({ type: `/problems/${code}`, title: code, status, detail: `proxy says ${code}`, code });
}

async function startProxy(upstream: string): Promise<Proxy> {
  const target = new URL(upstream);
  const proxy: Proxy = { url: "", seen: [], plan: [], rewriteHost: false, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const record: Seen = {
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      arrived: Date.now(),
      answered: 0,
      status: 0,
      forwarded: false,
      retryAfter: null,
      bodyBytes: 0,
      bodySha256: "",
    };
    proxy.seen.push(record);
    const step = proxy.plan.shift();
    if (step?.early) {
      const headers: OutgoingHttpHeaders = { "content-type": "application/problem+json", connection: "close" };
      if (step.retryAfter) headers["retry-after"] = record.retryAfter = step.retryAfter();
      record.status = step.status;
      res.writeHead(step.status, headers).end(problemBody(step.status), () => {
        record.answered = Date.now();
        req.socket.destroy();
      });
      return;
    }
    if (step) {
      // Read the whole request first, as a server would before its own answer.
      pipeline(req, tap(record), async (body: AsyncIterable<Buffer>) => {
        for await (const _ of body);
      }).then(() => {
        const headers: OutgoingHttpHeaders = { "content-type": "application/problem+json" };
        if (step.retryAfter) headers["retry-after"] = record.retryAfter = step.retryAfter();
        const body = problemBody(step.status);
        record.status = step.status;
        res.writeHead(step.status, headers).end(body, () => (record.answered = Date.now()));
      }, (error: unknown) => res.destroy(error as Error));
      return;
    }
    record.forwarded = true;
    const headers = endToEnd(req.headers);
    if (proxy.rewriteHost) headers.host = target.host;
    const outgoing = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent: false }, (answer) => {
      record.status = answer.statusCode ?? 0;
      res.writeHead(record.status, answer.statusMessage, endToEnd(answer.headers));
      pipeline(answer, res).catch(() => undefined);
    });
    outgoing.on("error", (error) => res.destroy(error));
    pipeline(req, tap(record), outgoing).catch(() => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

let server: RunningServer;
let proxy: Proxy;
let demo: SigningKey;
/** Signed, straight to the worker: the ground truth for what was written. */
let direct: PubsetClient;

beforeAll(async () => {
  server = await startServer();
  proxy = await startProxy(server.url);
  demo = { keyId: server.demoKey.key_id, secret: server.demoKey.secret };
  direct = new PubsetClient({ url: server.url, key: demo });
});
afterAll(async () => {
  await proxy?.close();
  await server?.stop();
});

/** The proxy's records of the requests `call` made, with the plan reset afterwards. */
async function through<T>(plan: Step[], call: () => Promise<T>): Promise<{ result: T | undefined; error: unknown; seen: Seen[] }> {
  const from = proxy.seen.length;
  proxy.plan = plan;
  try {
    const result = await call();
    return { result, error: undefined, seen: proxy.seen.slice(from) };
  } catch (error: unknown) {
    return { result: undefined, error, seen: proxy.seen.slice(from) };
  } finally {
    proxy.plan = [];
  }
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

async function expectProblem(call: Promise<unknown>, status: number, code: string): Promise<PubsetError> {
  const error = await call.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(PubsetError);
  expect(error).toMatchObject({ status, code });
  return error as PubsetError;
}

async function csvOf(client: PubsetClient, id: string, version?: string): Promise<string> {
  const download = await client.download({ id, version }, { format: "csv" });
  return new TextDecoder().decode(await readAllBytes(download.stream));
}

const header = (seen: Seen, name: string) => {
  const value = seen.headers[name];
  return Array.isArray(value) ? value.join(", ") : (value ?? null);
};
const uniqueName = (label: string) => `${label} ${crypto.randomUUID().slice(0, 8)}`;

describe("the proxy in front of the worker", () => {
  it("keeps the client's Host, so a signature over the proxy's authority verifies (and a rewritten Host would not)", async () => {
    const viaProxy = new PubsetClient({ url: proxy.url, key: demo });
    const created = await direct.create({ name: uniqueName("Authority") }, "a,b\n1,2\n");
    const { result, error, seen } = await through([], () => viaProxy.get(created.id));
    expect(error).toBeUndefined();
    expect(result).toMatchObject({ id: created.id, version: created.version });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ forwarded: true, status: 200 });
    expect(header(seen[0]!, "host")).toBe(new URL(proxy.url).host);

    proxy.rewriteHost = true;
    try {
      await expectProblem(viaProxy.get(created.id), 401, "signature_invalid");
    } finally {
      proxy.rewriteHost = false;
    }
  });
});

describe("429 and 503 over real HTTP", () => {
  it("a signed create retries 429 (Retry-After: 1), 503 and 429 (Retry-After: HTTP-date) with one Idempotency-Key, then lands once", async () => {
    const client = new PubsetClient({ url: proxy.url, key: demo, retry: { baseDelayMs: 10 } });
    const name = uniqueName("Retried");
    const csv = "id,word\n1,alpha\n2,beta\n3,gamma\n";
    let dateTarget = 0;
    const httpDate = () => {
      // Whole seconds only (IMF-fixdate), 1.5-2.5 s ahead.
      dateTarget = Math.ceil((Date.now() + 1500) / 1000) * 1000;
      return new Date(dateTarget).toUTCString();
    };
    const plan: Step[] = [{ status: 429, retryAfter: () => "1" }, { status: 503 }, { status: 429, retryAfter: httpDate }];
    const { result: created, error, seen } = await through(plan, () => client.create({ name }, new File([csv], "words.csv")));
    expect(error).toBeUndefined();
    expect(created).toMatchObject({ name, owner: server.demoKey.user, team: server.demoKey.team });

    expect(seen.map((s) => [s.method, s.path, s.status, s.forwarded])).toEqual([
      ["POST", "/v1/dataset", 429, false],
      ["POST", "/v1/dataset", 503, false],
      ["POST", "/v1/dataset", 429, false],
      ["POST", "/v1/dataset", 201, true],
    ]);
    const keys = new Set(seen.map((s) => header(s, "idempotency-key")));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    // Every attempt is signed afresh (a new nonce) over the same body and digest.
    expect(new Set(seen.map((s) => header(s, "signature"))).size).toBe(4);
    expect(new Set(seen.map((s) => header(s, "content-digest"))).size).toBe(1);
    expect(new Set(seen.map((s) => s.bodySha256)).size).toBe(1);
    expect(seen.every((s) => s.bodyBytes === Number(header(s, "content-length")))).toBe(true);

    // Waits measured by the proxy: from its 429's last byte to the next request's head.
    const [first, , third, fourth] = seen as [Seen, Seen, Seen, Seen];
    const afterSeconds = seen[1]!.arrived - first.answered;
    expect(afterSeconds).toBeGreaterThanOrEqual(900);
    expect(afterSeconds).toBeLessThan(10_000);
    expect(third.retryAfter).toBe(new Date(dateTarget).toUTCString());
    expect(fourth.arrived).toBeGreaterThanOrEqual(dateTarget - 100);
    expect(fourth.arrived - third.answered).toBeLessThan(10_000);

    // Exactly one dataset by that name, readable straight from the worker.
    const mine = (await collect(direct.list({ owner: server.demoKey.user }))).filter((item) => item.name === name);
    expect(mine.map((item) => item.id)).toEqual([created!.id]);
    expect(await direct.get(created!.id)).toMatchObject({ name, version: created!.version });
    expect((await collect(direct.versions(created!.id))).map((v) => v.version)).toEqual([created!.version]);
    expect(await csvOf(direct, created!.id)).toBe(csv);
  });

  it("a write that keeps getting 503 past the retry budget throws PubsetError 503, and nothing is written", async () => {
    const client = new PubsetClient({ url: proxy.url, key: demo, retry: { retries: 2, baseDelayMs: 10 } });
    const name = uniqueName("Unavailable");
    const plan: Step[] = Array.from({ length: 6 }, () => ({ status: 503 as const }));
    const { error, seen } = await through(plan, () => client.create({ name }, "a,b\n1,2\n"));
    expect(error).toBeInstanceOf(PubsetError);
    expect(error).toMatchObject({ status: 503, code: "service_unavailable" });
    expect(seen).toHaveLength(3);
    expect(seen.every((s) => s.status === 503 && !s.forwarded)).toBe(true);
    expect(new Set(seen.map((s) => header(s, "idempotency-key"))).size).toBe(1);
    const all = await collect(direct.list({ owner: server.demoKey.user }));
    expect(all.filter((item) => item.name === name)).toEqual([]);
  });

  it("an append retried after 429 adds its rows once, and pagination through the proxy stays on the proxy", async () => {
    const client = new PubsetClient({ url: proxy.url, key: demo, retry: { baseDelayMs: 10 } });
    const created = await direct.create({ name: uniqueName("Append retried") }, "n\n1\n");
    const { result: appended, error, seen } = await through([{ status: 429, retryAfter: () => "0" }, { status: 429, retryAfter: () => "0" }], () =>
      client.append(created.id, "2\n3\n", { ifMatch: created.version }),
    );
    expect(error).toBeUndefined();
    expect(seen.map((s) => s.status)).toEqual([429, 429, 201]);
    expect(new Set(seen.map((s) => header(s, "idempotency-key"))).size).toBe(1);
    expect(await direct.rows(created.id)).toMatchObject({ rows: [[1], [2], [3]], total: 3 });
    expect((await collect(direct.versions(created.id))).map((v) => v.version)).toEqual([appended!.version, created.version]);

    // Link: rel="next" is built from the URL the worker saw, i.e. the client's Host.
    const { result: pages, error: listError, seen: listed } = await through([], () => collect(client.versions(created.id, { limit: 1 })));
    expect(listError).toBeUndefined();
    expect(pages!.map((v) => v.version)).toEqual([appended!.version, created.version]);
    expect(listed.length).toBeGreaterThanOrEqual(2);
    expect(listed.every((s) => s.status === 200 && s.path.startsWith(`/v1/dataset/${created.id}/versions`))).toBe(true);
  });

  it("a 429 or 503 sent before the upload was read (connection closed) is retried with the whole body again", async () => {
    const client = new PubsetClient({ url: proxy.url, key: demo, retry: { baseDelayMs: 10 } });
    const csv = "id,token\n" + Array.from({ length: 30_000 }, (_, i) => `${i},${crypto.randomUUID()}`).join("\n") + "\n";
    const plan: Step[] = [{ status: 429, retryAfter: () => "0", early: true }, { status: 503, early: true }];
    const { result: created, error, seen } = await through(plan, () => client.create({ name: uniqueName("Early answer") }, new File([csv], "tokens.csv"), { gzip: false }));
    expect(error).toBeUndefined();
    expect(seen.map((s) => [s.status, s.forwarded])).toEqual([
      [429, false],
      [503, false],
      [201, true],
    ]);
    expect(new Set(seen.map((s) => header(s, "idempotency-key"))).size).toBe(1);
    expect(seen[2]!.bodyBytes).toBe(Number(header(seen[2]!, "content-length")));
    expect(await csvOf(direct, created!.id)).toBe(csv);
  });
});

describe("If-Match", () => {
  it("append with a stale version rejects with 412 precondition_failed and appends nothing", async () => {
    const client = new PubsetClient({ url: server.url, key: demo });
    const created = await client.create({ name: uniqueName("Stale") }, "k,v\na,1\n");
    const appended = await client.append(created.id, "b,2\n", { ifMatch: created.version });
    const error = await expectProblem(client.append(created.id, "c,3\n", { ifMatch: created.version }), 412, "precondition_failed");
    expect(error.problem.status).toBe(412);
    expect((await collect(client.versions(created.id))).map((v) => v.version)).toEqual([appended.version, created.version]);
    expect(await client.rows(created.id)).toMatchObject({ rows: [["a", 1], ["b", 2]], total: 2 });
    expect(await csvOf(client, created.id)).toBe("k,v\na,1\nb,2\n");
  });
});

describe("list({ owner }) across keys", () => {
  let colleague: DemoKey;
  let stranger: DemoKey;

  beforeAll(async () => {
    const makeKey = async (team: string, user: string) => {
      const run = await runScript("keys.ts", ["create", "--team", team, "--user", user, "--persist-to", server.stateDir]);
      if (run.code !== 0) throw new Error(`keys create exited ${run.code}\n${run.stderr}`);
      return JSON.parse(run.stdout) as DemoKey;
    };
    // One after the other: both write the same local D1 file.
    colleague = await makeKey(server.demoKey.team, "colleague");
    stranger = await makeKey("elsewhere", "stranger");
  });

  const keyOf = (key: DemoKey): SigningKey => ({ keyId: key.key_id, secret: key.secret });

  it("returns only that owner's datasets, and 403 forbidden for an owner outside the key's team", async () => {
    const mine = new PubsetClient({ url: server.url, key: demo });
    const theirs = new PubsetClient({ url: server.url, key: keyOf(colleague) });
    const outsider = new PubsetClient({ url: server.url, key: keyOf(stranger) });
    const demoOwn = await mine.create({ name: uniqueName("Demo's") }, "x\n1\n");
    const colleagueOwn = [
      await theirs.create({ name: uniqueName("Colleague's private"), visibility: "private" }, "x\n1\n"),
      await theirs.create({ name: uniqueName("Colleague's public"), visibility: "public" }, "x\n1\n"),
    ];
    expect(colleagueOwn.map((d) => [d.owner, d.team])).toEqual([
      ["colleague", server.demoKey.team],
      ["colleague", server.demoKey.team],
    ]);
    const strangerOwn = await outsider.create({ name: uniqueName("Stranger's"), visibility: "public" }, "x\n1\n");

    const ids = (items: DatasetListItem[]) => items.map((item) => item.id).sort();
    const byColleague = await collect(mine.list({ owner: "colleague", limit: 1 }));
    expect(ids(byColleague)).toEqual(colleagueOwn.map((d) => d.id).sort());
    expect(byColleague.every((item) => item.owner === "colleague" && item.team === server.demoKey.team)).toBe(true);

    const byDemo = await collect(theirs.list({ owner: server.demoKey.user }));
    expect(byDemo.length).toBeGreaterThan(1);
    expect(byDemo.every((item) => item.owner === server.demoKey.user)).toBe(true);
    expect(ids(byDemo)).toContain(demoOwn.id);
    expect(ids(byDemo)).toEqual(ids(await collect(mine.list({ owner: server.demoKey.user }))));
    const wholeTeam = ids(await collect(mine.list()));
    expect(wholeTeam).toEqual([...ids(byDemo), ...ids(byColleague)].sort());
    expect(wholeTeam).not.toContain(strangerOwn.id);

    await expectProblem(collect(mine.list({ owner: stranger.user })), 403, "forbidden");
    await expectProblem(collect(outsider.list({ owner: "colleague" })), 403, "forbidden");
    await expectProblem(collect(mine.list({ owner: "nobody-at-all" })), 403, "forbidden");
    expect(ids(await collect(outsider.list({ owner: stranger.user })))).toEqual([strangerOwn.id]);
  });
});

describe("uploads without streaming request bodies (the browser path)", () => {
  const original = ["id,city", ...Array.from({ length: 500 }, (_, i) => `${i + 1},"City ${i + 1}, Region ${i % 7}"`)].join("\n") + "\n";
  const bytes = new TextEncoder().encode(original);
  const oneShot = () =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.subarray(0, 1000));
        controller.enqueue(bytes.subarray(1000));
        controller.close();
      },
    });
  const cases = [
    { streamUploads: false, input: "File", make: () => new File([original], "cities.csv") },
    { streamUploads: false, input: "string", make: () => original },
    { streamUploads: false, input: "one-shot ReadableStream", make: oneShot },
    { streamUploads: true, input: "one-shot ReadableStream", make: oneShot },
  ];

  it.each(cases)("streamUploads: $streamUploads, $input: retried after 429, sent with Content-Length, downloads the same CSV", async ({ streamUploads, make }) => {
    const client = new PubsetClient({ url: proxy.url, key: demo, streamUploads, retry: { baseDelayMs: 10 } });
    const name = uniqueName(`Upload ${streamUploads ? "streamed" : "buffered"}`);
    const { result: created, error, seen } = await through([{ status: 429, retryAfter: () => "0" }], () => client.create({ name }, make()));
    expect(error).toBeUndefined();
    expect(seen.map((s) => s.status)).toEqual([429, 201]);
    for (const s of seen) {
      expect(header(s, "transfer-encoding")).toBeNull();
      expect(Number(header(s, "content-length"))).toBe(s.bodyBytes);
    }
    expect(seen[0]!.bodySha256).toBe(seen[1]!.bodySha256);
    expect(await csvOf(direct, created!.id)).toBe(original);
    expect(await csvOf(client, created!.id)).toBe(original);
  });
});
