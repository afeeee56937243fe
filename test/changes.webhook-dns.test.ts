// docs/changes.md "Webhook safety": before every delivery the host's A and AAAA records are looked
// up over DNS-over-HTTPS, and any address that is not public refuses the attempt. DOH_URL points at
// a real local DoH server (test/node/helpers/doh-responder.ts) whose zone each test sets.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { DOH_TIMEOUT_MS } from "../src/changes/webhooks/resolver.ts";
import { createKey } from "./helpers/keys.ts";
import { consume, deliveries, detachedDelivery, received } from "./helpers/webhooks.ts";
import type { ZoneEntry } from "./node/helpers/doh-responder.ts";

const DOH = env.TEST_DOH_RESPONDER;
const RECEIVER = env.TEST_WEBHOOK_RECEIVER;

/** A public-looking name no other test uses; the local zone alone decides what it resolves to. */
function hostName(): string {
  return `h${crypto.randomUUID().slice(0, 8)}.hooks.pubset-receivers.net`;
}

async function setZone(name: string, entry: ZoneEntry): Promise<void> {
  expect((await fetch(`${DOH}/zone/${name}`, { method: "PUT", body: JSON.stringify(entry) })).status).toBe(204);
}

async function queries(name: string): Promise<Array<{ type: string }>> {
  return (await (await fetch(`${DOH}/queries/${name}`)).json()) as Array<{ type: string }>;
}

/**
 * This machine has no route to the internet, so a request the consumer makes to a public name is
 * carried to the local receiver instead, as the network would carry it to the address DNS gave.
 * `urls` are the URLs the consumer asked for.
 */
function carriedTo(receiverName: string): { fetcher: typeof fetch; urls: string[] } {
  const urls: string[] = [];
  const fetcher: typeof fetch = (input, init) => {
    urls.push(input instanceof Request ? input.url : String(input));
    return fetch(`${RECEIVER}/ok/${receiverName}`, init);
  };
  return { fetcher, urls };
}

describe("the addresses a webhook's name resolves to", { timeout: 60_000 }, () => {
  it("a private answer refuses the attempt before any request; once DNS answers public addresses, the retry is delivered", async () => {
    const key = await createKey("hn-team", "dns");
    const host = hostName();
    const name = `dns-${crypto.randomUUID()}`;
    await setZone(host, { A: ["93.184.216.34", "10.0.0.7"] });
    const { webhook, seq } = await detachedDelivery(key, `https://${host}/hook`);
    const network = carriedTo(name);

    const refused = await consume([{ webhookId: webhook.id, seq }], { fetcher: network.fetcher });
    expect(refused.explicitAcks).toEqual([]);
    expect(refused.retryMessages).toHaveLength(1);
    expect(network.urls).toEqual([]);
    const [row] = await deliveries(key, webhook.id);
    expect(row).toMatchObject({ status: "pending", attempts: 1, response_code: null });
    expect(row!.error).toBe(`url refused: ${host} resolves to 10.0.0.7, in 10.0.0.0/8, private-use (RFC 1918)`);
    expect((await queries(host)).map((q) => q.type).sort()).toEqual(["A", "AAAA"]);

    await setZone(host, { A: ["93.184.216.34"], AAAA: ["2606:2800:220:1:248:1893:25c8:1946"] });
    const delivered = await consume([{ webhookId: webhook.id, seq }], { fetcher: network.fetcher });
    expect(delivered.explicitAcks).toHaveLength(1);
    expect(network.urls).toEqual([`https://${host}/hook`]);
    expect((await deliveries(key, webhook.id))[0]).toMatchObject({ status: "delivered", attempts: 2, response_code: 204, error: null });
    const [got] = await received(name);
    expect(new Webhook(webhook.secret).verify(got!.body, got!.headers)).toMatchObject({ type: "dataset.created" });
    expect(await queries(host)).toHaveLength(4);
  });

  it.each<[string, ZoneEntry, string]>([
    ["a loopback A", { A: ["127.0.0.1"] }, "127.0.0.1, in 127.0.0.0/8"],
    ["the cloud metadata address", { A: ["169.254.169.254"] }, "169.254.169.254, in 169.254.0.0/16"],
    ["a carrier-grade NAT address", { A: ["100.64.3.4"] }, "100.64.3.4, in 100.64.0.0/10"],
    ["\"this network\"", { A: ["0.0.0.0"] }, "0.0.0.0, in 0.0.0.0/8"],
    ["a unique-local AAAA beside a public A", { A: ["93.184.216.34"], AAAA: ["fd12:3456::1"] }, "fd12:3456::1, in fc00::/7"],
    ["a link-local AAAA", { AAAA: ["fe80::1"] }, "fe80::1, in fe80::/10"],
    ["the IPv6 loopback", { AAAA: ["::1"] }, "::1, in ::1/128"],
    ["an IPv4-mapped private address", { AAAA: ["::ffff:192.168.1.1"] }, "::ffff:192.168.1.1, in 192.168.0.0/16"],
  ])("refuses %s", async (_, entry, reason) => {
    const key = await createKey("hn-table", "dns");
    const host = hostName();
    await setZone(host, entry);
    const { webhook, seq } = await detachedDelivery(key, `https://${host}/hook`);
    const network = carriedTo(`never-${crypto.randomUUID()}`);
    const result = await consume([{ webhookId: webhook.id, seq }], { fetcher: network.fetcher });
    expect(result.retryMessages).toHaveLength(1);
    expect(network.urls).toEqual([]);
    expect((await deliveries(key, webhook.id))[0]!.error).toContain(`url refused: ${host} resolves to ${reason}`);
  });

  it("follows a CNAME: a public name aliasing one with a private address is refused", async () => {
    const key = await createKey("hn-cname", "dns");
    const host = hostName();
    const target = hostName();
    await setZone(host, { CNAME: target });
    await setZone(target, { A: ["172.20.1.2"] });
    const { webhook, seq } = await detachedDelivery(key, `https://${host}/hook`);
    const network = carriedTo(`never-${crypto.randomUUID()}`);
    await consume([{ webhookId: webhook.id, seq }], { fetcher: network.fetcher });
    expect(network.urls).toEqual([]);
    expect((await deliveries(key, webhook.id))[0]!.error).toBe(`url refused: ${host} resolves to 172.20.1.2, in 172.16.0.0/12, private-use (RFC 1918)`);
  });

  it.each<[string, ZoneEntry | null, RegExp]>([
    ["SERVFAIL", { rcode: 2 }, /DNS answered SERVFAIL/],
    ["a name that does not exist", null, /DNS answered NXDOMAIN/],
    ["no address records", {}, /no A or AAAA record/],
    ["an HTTP error from the DoH server", { status: 503 }, /answered HTTP 503/],
    ["no answer in time", { A: ["93.184.216.34"], delayMs: DOH_TIMEOUT_MS + 1000 }, /no DNS-over-HTTPS answer within 5 s/],
  ])("a lookup that fails (%s) is a failed attempt, never a delivery", async (_, entry, reason) => {
    const key = await createKey("hn-fail", "dns");
    const host = hostName();
    if (entry) await setZone(host, entry);
    const { webhook, seq } = await detachedDelivery(key, `https://${host}/hook`);
    const network = carriedTo(`never-${crypto.randomUUID()}`);
    const result = await consume([{ webhookId: webhook.id, seq }], { fetcher: network.fetcher });
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages).toHaveLength(1);
    expect(network.urls).toEqual([]);
    const [row] = await deliveries(key, webhook.id);
    expect(row).toMatchObject({ status: "pending", attempts: 1, response_code: null });
    expect(row!.error).toMatch(new RegExp(`^url not resolved: ${host.replace(/\./g, "\\.")}: `));
    expect(row!.error).toMatch(reason);
  });

  it("one batch's deliveries to one host share one lookup", async () => {
    const key = await createKey("hn-once", "dns");
    const host = hostName();
    const name = `once-${crypto.randomUUID()}`;
    await setZone(host, { A: ["93.184.216.34"] });
    const first = await detachedDelivery(key, `https://${host}/a`);
    const second = await detachedDelivery(key, `https://${host}/b`);
    const network = carriedTo(name);
    const result = await consume([{ webhookId: first.webhook.id, seq: first.seq }, { webhookId: second.webhook.id, seq: second.seq }], { fetcher: network.fetcher });
    expect(result.explicitAcks).toHaveLength(2);
    expect(network.urls.sort()).toEqual([`https://${host}/a`, `https://${host}/b`]);
    expect((await queries(host)).map((q) => q.type).sort()).toEqual(["A", "AAAA"]);
  });

  it("the local-development allowance (http://127.0.0.1) names an address: nothing is looked up", async () => {
    const key = await createKey("hn-local", "dns");
    const name = `local-${crypto.randomUUID()}`;
    const { webhook, seq } = await detachedDelivery(key, `${RECEIVER}/ok/${name}`);
    // A DoH server that cannot be reached: a lookup would fail the attempt.
    const result = await consume([{ webhookId: webhook.id, seq }], {}, { ...env, DOH_URL: "http://127.0.0.1:9/dns-query" });
    expect(result.explicitAcks).toHaveLength(1);
    expect(await received(name)).toHaveLength(1);
  });
});
