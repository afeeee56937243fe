// The addresses a webhook may not be delivered to (docs/changes.md "Webhook safety"): every range
// of the IANA special-purpose address registries (RFC 6890 and its updates) that is not globally
// reachable, plus multicast and everything IPv6 outside global unicast. An address that embeds
// an IPv4 one a translator would connect to (IPv4-mapped, NAT64, 6to4) is judged by that. Pure.
import { formatIpAddress, inPrefix, parseIpAddress, type IpAddress } from "./ip-address.ts";

export type AddressClass =
  | { public: true }
  | { public: false; range: string; purpose: string };

interface Range {
  prefix: IpAddress;
  bits: number;
  text: string;
  purpose: string;
  /** Where the embedded IPv4 address starts, for ranges judged by it. */
  embedsIpv4At?: number;
}

function range(text: string, purpose: string, embedsIpv4At?: number): Range {
  const [address = "", bits = ""] = text.split("/");
  const prefix = parseIpAddress(address);
  if (!prefix) throw new Error(`special-addresses: ${text} is not a prefix`);
  return { prefix, bits: Number(bits), text, purpose, embedsIpv4At };
}

/** IPv4, RFC 6890 §2.2.2 as updated in the IANA registry: the ranges not globally reachable. */
const IPV4: readonly Range[] = [
  range("0.0.0.0/8", "\"this network\" (RFC 791)"),
  range("10.0.0.0/8", "private-use (RFC 1918)"),
  range("100.64.0.0/10", "shared address space, carrier-grade NAT (RFC 6598)"),
  range("127.0.0.0/8", "loopback (RFC 1122)"),
  range("169.254.0.0/16", "link-local, cloud metadata services (RFC 3927)"),
  range("172.16.0.0/12", "private-use (RFC 1918)"),
  range("192.0.0.0/24", "IETF protocol assignments (RFC 6890)"),
  range("192.0.2.0/24", "documentation, TEST-NET-1 (RFC 5737)"),
  range("192.88.99.0/24", "6to4 relay anycast, deprecated (RFC 7526)"),
  range("192.168.0.0/16", "private-use (RFC 1918)"),
  range("198.18.0.0/15", "benchmarking (RFC 2544)"),
  range("198.51.100.0/24", "documentation, TEST-NET-2 (RFC 5737)"),
  range("203.0.113.0/24", "documentation, TEST-NET-3 (RFC 5737)"),
  range("224.0.0.0/4", "multicast (RFC 5771)"),
  range("240.0.0.0/4", "reserved, and the limited broadcast 255.255.255.255 (RFC 1112, RFC 8190)"),
];

/** IPv6, RFC 6890 §2.2.3 as updated, first match wins: embedding ranges before their covers. */
const IPV6: readonly Range[] = [
  range("::/128", "unspecified (RFC 4291)"),
  range("::1/128", "loopback (RFC 4291)"),
  range("::ffff:0:0/96", "IPv4-mapped (RFC 4291)", 12),
  range("::/96", "IPv4-compatible, deprecated (RFC 4291)"),
  range("64:ff9b::/96", "NAT64 well-known prefix (RFC 6052)", 12),
  range("64:ff9b:1::/48", "local-use NAT64 (RFC 8215)"),
  range("100::/64", "discard-only (RFC 6666)"),
  range("fc00::/7", "unique-local (RFC 4193)"),
  range("fe80::/10", "link-local (RFC 4291)"),
  range("fec0::/10", "site-local, deprecated (RFC 3879)"),
  range("ff00::/8", "multicast (RFC 4291)"),
  range("2001::/23", "IETF protocol assignments: Teredo, benchmarking, ORCHID (RFC 2928)"),
  range("2001:db8::/32", "documentation (RFC 3849)"),
  range("2002::/16", "6to4 (RFC 3056)", 2),
  range("3fff::/20", "documentation (RFC 9637)"),
];

/** Global unicast (RFC 4291 §2.4, the IANA IPv6 address space): no other IPv6 address is public. */
const GLOBAL_UNICAST = range("2000::/3", "global unicast");

function find(address: IpAddress, ranges: readonly Range[]): Range | undefined {
  return ranges.find((r) => inPrefix(address, r.prefix, r.bits));
}

/** Whether a webhook may be delivered to `address`, and if not, which range it is in and why. */
export function classifyAddress(address: IpAddress): AddressClass {
  if (address.length === 4) {
    const hit = find(address, IPV4);
    return hit ? { public: false, range: hit.text, purpose: hit.purpose } : { public: true };
  }
  const hit = find(address, IPV6);
  if (hit?.embedsIpv4At !== undefined) {
    const inner = address.subarray(hit.embedsIpv4At, hit.embedsIpv4At + 4);
    const judged = classifyAddress(inner);
    if (judged.public) return judged;
    return { public: false, range: judged.range, purpose: `${judged.purpose}, as ${formatIpAddress(inner)} inside ${hit.text}, ${hit.purpose}` };
  }
  if (hit) return { public: false, range: hit.text, purpose: hit.purpose };
  if (!inPrefix(address, GLOBAL_UNICAST.prefix, GLOBAL_UNICAST.bits)) return { public: false, range: "outside 2000::/3", purpose: "not global unicast (RFC 4291)" };
  return { public: true };
}
