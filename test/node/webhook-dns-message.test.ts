// The DNS messages of a webhook host's lookup (RFC 1035 §4.1, RFC 8484 §4.1), checked against
// the dns-packet package as an independent encoder and decoder, and against a hand-written answer
// with compressed names (RFC 1035 §4.1.4), as public resolvers send them.
import dnsPacket from "dns-packet";
import { describe, expect, it } from "vitest";
import { decodeAnswer, encodeQuery, TYPE_A, TYPE_AAAA } from "../../src/changes/webhooks/dns-message.ts";
import { formatIpAddress } from "../../src/changes/webhooks/ip-address.ts";

function addresses(answer: ReturnType<typeof decodeAnswer>): string[] {
  if (!answer.ok) throw new Error(answer.error);
  return answer.addresses.map(formatIpAddress);
}

function response(packet: Partial<dnsPacket.Packet>, flags = 0): Uint8Array {
  return dnsPacket.encode({ type: "response", id: 0, flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | flags, ...packet });
}

describe("encodeQuery", () => {
  it("is a recursive query with ID 0 and one IN question, as dns-packet reads it", () => {
    for (const [type, name] of [[TYPE_A, "A"], [TYPE_AAAA, "AAAA"]] as const) {
      const decoded = dnsPacket.decode(Buffer.from(encodeQuery("Hooks.Example.com", type)));
      expect(decoded).toMatchObject({ id: 0, type: "query", flag_rd: true, questions: [{ name: "Hooks.Example.com", type: name, class: "IN" }], answers: [] });
    }
  });

  it("refuses what is not a host name", () => {
    for (const name of ["", "a..b", `${"a".repeat(64)}.com`, `${"a.".repeat(127)}com`, "bad name.com", "é.com"]) expect(() => encodeQuery(name, TYPE_A)).toThrow();
  });
});

describe("decodeAnswer", () => {
  const question = { name: "hooks.example.com", type: "A" as const, class: "IN" as const };

  it("reads the addresses dns-packet wrote, following a CNAME chain and skipping other types", () => {
    const bytes = response({
      questions: [question],
      answers: [
        { type: "CNAME", name: "hooks.example.com", ttl: 60, data: "edge.cdn.example.net" },
        { type: "A", name: "edge.cdn.example.net", ttl: 60, data: "93.184.216.34" },
        { type: "TXT", name: "edge.cdn.example.net", ttl: 60, data: "v=x" },
        { type: "A", name: "edge.cdn.example.net", ttl: 60, data: "10.0.0.7" },
      ],
    });
    expect(addresses(decodeAnswer(bytes, "hooks.example.com", TYPE_A))).toEqual(["93.184.216.34", "10.0.0.7"]);
    const v6 = response({ questions: [{ ...question, type: "AAAA" }], answers: [{ type: "AAAA", name: "hooks.example.com", ttl: 60, data: "2001:db8::1" }] });
    expect(addresses(decodeAnswer(v6, "HOOKS.example.com.", TYPE_AAAA))).toEqual(["2001:db8::1"]);
  });

  it("reads compressed names: an answer pointing at its question, as public resolvers write it", () => {
    // hooks.example.com A → 93.184.216.34, the answer's name a pointer (0xc00c) to the question's.
    const bytes = Uint8Array.from([
      0x00, 0x00, 0x81, 0x80, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
      5, ...Buffer.from("hooks"), 7, ...Buffer.from("example"), 3, ...Buffer.from("com"), 0, 0x00, 0x01, 0x00, 0x01,
      0xc0, 0x0c, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x01, 0x2c, 0x00, 0x04, 93, 184, 216, 34,
      // a second record whose name is "www" followed by a pointer to "example.com" (offset 18)
      3, ...Buffer.from("www"), 0xc0, 0x12, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x01, 0x2c, 0x00, 0x04, 172, 16, 0, 1,
    ]);
    expect(addresses(decodeAnswer(bytes, "hooks.example.com", TYPE_A))).toEqual(["93.184.216.34", "172.16.0.1"]);
  });

  it("gives an error RCODE as it is, with no addresses", () => {
    const bytes = response({ questions: [question] }, 3);
    expect(decodeAnswer(bytes, "hooks.example.com", TYPE_A)).toEqual({ ok: true, rcode: 3, addresses: [] });
  });

  it("refuses an answer it cannot trust to hold every address", () => {
    const good = response({ questions: [question], answers: [{ type: "A", name: "hooks.example.com", ttl: 60, data: "93.184.216.34" }] });
    const cases: Array<[string, Uint8Array]> = [
      ["shorter than a header", good.subarray(0, 11)],
      ["cut inside a record", good.subarray(0, good.length - 2)],
      ["a query, not a response", Uint8Array.from(dnsPacket.encode({ type: "query", id: 0, questions: [question] }))],
      ["truncated (TC)", response({ questions: [question] }, dnsPacket.TRUNCATED_RESPONSE)],
      ["another ID", dnsPacket.encode({ type: "response", id: 7, questions: [question] })],
      ["another question", response({ questions: [{ ...question, name: "other.example.com" }] })],
      ["another type", response({ questions: [{ ...question, type: "AAAA" }] })],
      ["no question", response({})],
      [
        "an A record of 16 bytes",
        Uint8Array.from([...good.subarray(0, good.length - 6), 0x00, 0x10, ...new Uint8Array(16)]),
      ],
      [
        "a name pointer that loops",
        Uint8Array.from([0x00, 0x00, 0x81, 0x80, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc0, 0x0c, 0x00, 0x01, 0x00, 0x01]),
      ],
    ];
    for (const [why, bytes] of cases) {
      const answer = decodeAnswer(bytes, "hooks.example.com", TYPE_A);
      expect(answer.ok, why).toBe(false);
    }
  });
});
