// The TypeScript client (src/client/) in a real browser against `npm start`: the package's own
// dist/client.js, the file `pubset/client` resolves to (`npm test` builds it first), loaded by a page on another origin (another port of 127.0.0.1 — a
// secure context, so WebCrypto works — making every API call cross-origin, so the worker's
// CORS answers decide), and run through a signed create → append → list/search → rows →
// download → make private → delete flow.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { Request as BrowserRequest } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { e2eServer, type E2eServer } from "../node/helpers/shared-server.ts";
import { describeInChromium, launchChromium, type Chromium } from "./helpers/chromium.ts";
import { pagePerTest } from "./helpers/page-per-test.ts";

type ClientModule = typeof import("../../src/client/index.ts");

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const HEADER = "river,country,length_km\n";
const FIRST = "Rhine,CH/DE/NL,1233\nRhône,CH/FR,813\n";
const APPENDED = "Loire,FR,1006\n";
const FAILED_LOAD = /^Failed to load resource: the server responded with a status of (\d{3}) /;

/** dist/client.js as `npm run build` makes it: the client and everything it imports, one ES module. */
async function bundleClient(): Promise<string> {
  const built = `${ROOT}dist/client.js`;
  const newest = Math.max(...["src/client", "src/wire", "src/csv", "src/schema"].flatMap((dir) => readdirSync(`${ROOT}${dir}`).map((file) => statSync(`${ROOT}${dir}/${file}`).mtimeMs)));
  if (!existsSync(built) || statSync(built).mtimeMs < newest) throw new Error("dist/client.js is missing or older than src/: run `npm run build`");
  return readFileSync(built, "utf8");
}

interface AppOrigin {
  origin: string;
  close(): Promise<void>;
}

/** The page's own origin: a blank page that loads the bundle as `window.pubset`. */
function servePage(bundle: string): Promise<AppOrigin> {
  const html = `<!doctype html><meta charset="utf-8"><title>pubset client</title><link rel="icon" href="data:,">
<script type="module">import * as pubset from "/pubset-client.js"; window.pubset = pubset;</script>`;
  const server: Server = createServer((request, response) => {
    if (request.url === "/") response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(html);
    else if (request.url === "/pubset-client.js") response.writeHead(200, { "Content-Type": "text/javascript; charset=utf-8" }).end(bundle);
    else response.writeHead(404).end();
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () =>
      resolve({
        origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    );
  });
}

interface ApiCall {
  method: string;
  path: string;
  origin: string | undefined;
  status: number;
  allowOrigin: string | undefined;
}

interface Preflight {
  path: string;
  method: string;
  /** Access-Control-Request-Headers: what the request is about to send. */
  headers: string[];
  status?: number;
  allowOrigin?: string;
  /** Access-Control-Allow-Headers, lower-cased. */
  allowed?: string[];
}

/** A header of a DevTools-protocol header object, whose names keep their wire case. */
function header(headers: Record<string, string>, name: string): string | undefined {
  return Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
}

const list = (value: string | undefined) => (value ?? "").toLowerCase().split(",").map((item) => item.trim()).filter(Boolean);

describeInChromium("TypeScript client in Chromium", () => {
  let api: E2eServer & { stop(): Promise<void> };
  let browser: Chromium;
  let app: AppOrigin;
  /** `<status> <url>` of API calls the flow makes expecting that error, which Chromium logs. */
  const expectedFailures = new Set<string>();

  beforeAll(async () => {
    [api, browser, app] = await Promise.all([e2eServer(), launchChromium({ javaScript: true }), bundleClient().then(servePage)]);
  });

  afterAll(async () => {
    await browser?.close();
    await api?.stop();
    await app?.close();
  });

  const page = pagePerTest(() => browser.context, {
    expectedError: (message) => expectedFailures.has(`${FAILED_LOAD.exec(message.text())?.[1]} ${message.location().url}`),
  });

  it("runs a signed create → append → search → rows → download → private → delete flow cross-origin", async () => {
    const p = page();
    const path = (url: string) => url.slice(api.url.length);

    // Playwright reports no preflights; Chromium's DevTools protocol does.
    const preflights = new Map<string, Preflight>();
    const cdp = await browser.context.newCDPSession(p);
    cdp.on("Network.requestWillBeSent", ({ requestId, request }) => {
      if (request.method !== "OPTIONS" || !request.url.startsWith(api.url)) return;
      const method = header(request.headers, "access-control-request-method") ?? "";
      preflights.set(requestId, { path: path(request.url), method, headers: list(header(request.headers, "access-control-request-headers")) });
    });
    cdp.on("Network.responseReceived", ({ requestId, type, response }) => {
      const preflight = preflights.get(requestId);
      if (type !== "Preflight" || !preflight) return;
      preflight.status = response.status;
      preflight.allowOrigin = header(response.headers, "access-control-allow-origin");
      preflight.allowed = list(header(response.headers, "access-control-allow-headers"));
    });
    await cdp.send("Network.enable");

    const calls: Promise<ApiCall>[] = [];
    let createRequest: BrowserRequest | undefined;
    p.on("response", (response) => {
      const request = response.request();
      if (!request.url().startsWith(api.url)) return;
      if (request.method() === "POST" && path(request.url()) === "/v1/dataset") createRequest = request;
      calls.push(
        request.allHeaders().then((headers) => ({
          method: request.method(),
          path: path(request.url()),
          origin: headers.origin,
          status: response.status(),
          allowOrigin: response.headers()["access-control-allow-origin"],
        })),
      );
    });
    await p.exposeFunction("expectFailure", (status: number, url: string) => expectedFailures.add(`${status} ${url}`));

    await p.goto(`${app.origin}/`);
    await p.waitForFunction(() => "pubset" in window);
    const tag = `browserflow${Date.now()}`;

    const result = await p.evaluate(
      async ({ url, keyId, secret, tag, header, first, appended }) => {
        const { PubsetClient, PubsetError } = (window as unknown as { pubset: ClientModule }).pubset;
        const expectFailure = (window as unknown as { expectFailure(status: number, url: string): Promise<void> }).expectFailure;
        const failure = async (call: () => Promise<unknown>) => {
          try {
            await call();
            return null;
          } catch (error: unknown) {
            return error instanceof PubsetError ? { status: error.status, code: error.code } : { thrown: String(error) };
          }
        };
        // Watches what the client hands to the page's fetch, passing every call through.
        const bodies: unknown[] = [];
        const pageFetch = window.fetch;
        window.fetch = (input, init) => {
          bodies.push(init?.body);
          return pageFetch(input, init);
        };
        /** The `dataset` part of a multipart body sent as a Blob, gunzipped. */
        const uploadedFile = async (body: unknown) => {
          if (!(body instanceof Blob)) return { blob: false };
          // One character per byte (windows-1252), so string indexes are byte offsets.
          const text = new TextDecoder("latin1").decode(await body.arrayBuffer());
          const head = /Content-Disposition: form-data; name="dataset"; filename="([^"]*)"\r\nContent-Type: ([^\r]*)\r\n\r\n/.exec(text);
          if (!head) return { blob: true, size: body.size };
          const start = head.index + head[0].length;
          const part = body.slice(start, text.lastIndexOf("\r\n--"));
          const csv = await new Response(part.stream().pipeThrough(new DecompressionStream("gzip"))).text();
          return { blob: true, size: body.size, fileName: head[1], type: head[2], csv };
        };
        const client = new PubsetClient({ url, key: { keyId, secret } });
        const phases = new Set<string>();
        const file = new File([header + first], "rivers.csv", { type: "text/csv" });
        const created = await client.create({ name: `Rivers ${tag}`, visibility: "public", properties: { key_words: [tag] } }, file, {
          onProgress: ({ phase }) => phases.add(phase),
        });
        const upload = await uploadedFile(bodies[0]);
        const added = await client.append(created.id, appended, { ifMatch: created.version });
        const listed = [];
        for await (const item of client.list({ q: tag })) listed.push({ id: item.id, version: item.version });
        const found = [];
        for await (const item of client.search(tag)) found.push(item.id);
        const versions = [];
        for await (const version of client.versions(created.id)) versions.push({ version: version.version, rows: version.rows });
        const rows = await client.rows(created.id, { offset: 1, limit: 10 });
        // By id: the client reads the record's Link header (exposed by CORS) for the file.
        const download = await client.download({ id: created.id }, { format: "csv" });
        const csv = await new Response(download.stream).text();
        const updated = await client.update(created.id, { collection: { visibility: "private" } });
        const signedGet = await client.get(created.id);
        const record = `${url}/v1/dataset/${created.id}`;
        await expectFailure(404, record);
        const anonymous = await failure(() => new PubsetClient({ url }).get(created.id));
        await expectFailure(401, record);
        const wrongSecret = await failure(() => new PubsetClient({ url, key: { keyId, secret: btoa("not the secret") } }).get(created.id));
        await client.delete(created.id);
        const afterDelete = await failure(() => client.get(created.id));
        return {
          created: { id: created.id, version: created.version, visibility: created.visibility, source: created.source },
          phases: [...phases].sort(),
          upload,
          appended: added.version,
          listed,
          found,
          versions,
          rows,
          download: { fileName: download.fileName, compressedBytes: download.compressedBytes, csv },
          updated: updated.visibility,
          signedGet: signedGet.visibility,
          anonymous,
          wrongSecret,
          afterDelete,
        };
      },
      { url: api.url, keyId: api.demoKey.key_id, secret: api.demoKey.secret, tag, header: HEADER, first: FIRST, appended: APPENDED },
    );

    const { id, version } = result.created;
    expect(result.created).toEqual({ id, version, visibility: "public", source: `/v1/dataset/${id}/${version}/rivers.csv.gz` });
    expect(result.phases).toEqual(["prepare", "processing", "upload"]);
    expect(result.appended).not.toBe(version);
    expect(result.listed).toEqual([{ id, version: result.appended }]);
    expect(result.found).toEqual([id]);
    expect(result.versions).toEqual([
      { version: result.appended, rows: 3 },
      { version, rows: 2 },
    ]);
    expect(result.rows).toEqual({
      columns: ["river", "country", "length_km"],
      schema: { fields: [{ name: "river", type: "string" }, { name: "country", type: "string" }, { name: "length_km", type: "integer" }], missingValues: [""] },
      rows: [["Rhône", "CH/FR", 813], ["Loire", "FR", 1006]],
      offset: 1,
      total: 3,
      matched: 3,
      partial: false,
    });
    expect(result.download).toEqual({ fileName: "rivers.csv", compressedBytes: expect.any(Number), csv: HEADER + FIRST + APPENDED });
    expect(result.updated).toBe("private");
    expect(result.signedGet).toBe("private");
    expect(result.anonymous).toEqual({ status: 404, code: "not_found" });
    expect(result.wrongSecret).toEqual({ status: 401, code: "signature_invalid" });
    expect(result.afterDelete).toEqual({ status: 404, code: "not_found" });

    // The upload went out signed, as one Blob (browsers do not stream request bodies over
    // HTTP/1.1), with the CSV gzipped client-side.
    expect(createRequest).toBeDefined();
    const createHeaders = await createRequest!.allHeaders();
    expect(Object.keys(createHeaders)).toEqual(expect.arrayContaining(["signature", "signature-input", "content-digest", "idempotency-key"]));
    expect(result.upload).toEqual({ blob: true, size: Number(createHeaders["content-length"]), fileName: "rivers.csv.gz", type: "application/gzip", csv: HEADER + FIRST });

    // Cross-origin from end to end: every call carried the page's Origin and got the worker's CORS answer.
    const seen = await Promise.all(calls);
    expect(seen.map((call) => `${call.method} ${call.status}`)).toEqual(expect.arrayContaining(["POST 201", "PUT 200", "DELETE 204", "GET 404", "GET 401"]));
    for (const call of seen) expect(call, `${call.method} ${call.path}`).toMatchObject({ origin: app.origin, allowOrigin: "*" });

    // Signed calls are not simple requests: Chromium asked first, and the worker allowed what the client sends.
    const asked = [...preflights.values()];
    expect(asked.find((preflight) => preflight.path === "/v1/dataset" && preflight.method === "POST")).toEqual({
      path: "/v1/dataset",
      method: "POST",
      headers: expect.arrayContaining(["content-digest", "idempotency-key", "signature", "signature-input"]),
      status: 204,
      allowOrigin: "*",
      allowed: expect.arrayContaining(["content-digest", "idempotency-key", "signature", "signature-input", "if-match"]),
    });
    for (const preflight of asked) {
      expect(preflight, preflight.path).toMatchObject({ status: 204, allowOrigin: "*", allowed: expect.arrayContaining(preflight.headers) });
    }
  });
});
