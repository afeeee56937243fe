// docs/changes.md "Webhook safety": which addresses a webhook may be delivered to. The ranges are
// the IANA special-purpose address registries (RFC 6890 and its updates) that are not globally
// reachable, multicast, and all IPv6 outside 2000::/3; each range is tested at its edges.
import { describe, expect, it } from "vitest";
import { formatIpAddress, parseIpAddress } from "../../src/changes/webhooks/ip-address.ts";
import { classifyAddress } from "../../src/changes/webhooks/special-addresses.ts";
import { mulberry32 } from "../helpers/random.ts";

function classify(text: string) {
  const address = parseIpAddress(text);
  if (!address) throw new Error(`not an address: ${text}`);
  return classifyAddress(address);
}

describe("classifyAddress", () => {
  it.each([
    ["0.0.0.0", "0.0.0.0/8"],
    ["0.255.255.255", "0.0.0.0/8"],
    ["10.0.0.0", "10.0.0.0/8"],
    ["10.255.255.255", "10.0.0.0/8"],
    ["100.64.0.0", "100.64.0.0/10"],
    ["100.127.255.255", "100.64.0.0/10"],
    ["127.0.0.1", "127.0.0.0/8"],
    ["127.255.255.255", "127.0.0.0/8"],
    ["169.254.0.0", "169.254.0.0/16"],
    ["169.254.169.254", "169.254.0.0/16"],
    ["172.16.0.0", "172.16.0.0/12"],
    ["172.31.255.255", "172.16.0.0/12"],
    ["192.0.0.8", "192.0.0.0/24"],
    ["192.0.2.1", "192.0.2.0/24"],
    ["192.88.99.1", "192.88.99.0/24"],
    ["192.168.0.1", "192.168.0.0/16"],
    ["192.168.255.255", "192.168.0.0/16"],
    ["198.18.0.0", "198.18.0.0/15"],
    ["198.19.255.255", "198.18.0.0/15"],
    ["198.51.100.7", "198.51.100.0/24"],
    ["203.0.113.9", "203.0.113.0/24"],
    ["224.0.0.1", "224.0.0.0/4"],
    ["239.255.255.255", "224.0.0.0/4"],
    ["240.0.0.1", "240.0.0.0/4"],
    ["255.255.255.255", "240.0.0.0/4"],
    ["::", "::/128"],
    ["::1", "::1/128"],
    ["::10.0.0.1", "::/96"],
    ["::ffff:127.0.0.1", "127.0.0.0/8"],
    ["::ffff:169.254.169.254", "169.254.0.0/16"],
    ["::ffff:a00:1", "10.0.0.0/8"],
    ["64:ff9b::a00:1", "10.0.0.0/8"],
    ["64:ff9b::7f00:1", "127.0.0.0/8"],
    ["64:ff9b:1::1", "64:ff9b:1::/48"],
    ["100::1", "100::/64"],
    ["fc00::1", "fc00::/7"],
    ["fdff:ffff::1", "fc00::/7"],
    ["fe80::1", "fe80::/10"],
    ["febf:ffff::1", "fe80::/10"],
    ["fec0::1", "fec0::/10"],
    ["ff02::1", "ff00::/8"],
    ["2001::1", "2001::/23"],
    ["2001:1ff:ffff::1", "2001::/23"],
    ["2001:db8::1", "2001:db8::/32"],
    ["2002:a00:1::1", "10.0.0.0/8"],
    ["2002:c0a8:101::", "192.168.0.0/16"],
    ["3fff::1", "3fff::/20"],
    ["1::1", "outside 2000::/3"],
    ["4000::1", "outside 2000::/3"],
    ["5f00::1", "outside 2000::/3"],
  ])("refuses %s (%s)", (text, range) => {
    expect(classify(text)).toMatchObject({ public: false, range });
  });

  it.each([
    "1.1.1.1",
    "8.8.8.8",
    "93.184.216.34",
    "9.255.255.255",
    "11.0.0.0",
    "100.63.255.255",
    "100.128.0.0",
    "126.255.255.255",
    "128.0.0.0",
    "169.253.255.255",
    "169.255.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "192.0.1.255",
    "192.0.3.0",
    "192.167.255.255",
    "192.169.0.0",
    "198.17.255.255",
    "198.20.0.0",
    "223.255.255.255",
    "2606:4700:4700::1111",
    "2001:200::1",
    "2001:4860:4860::8888",
    "2a00:1450:4001::1",
    "3ffe::1",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
  ])("takes %s as public", (text) => {
    expect(classify(text)).toEqual({ public: true });
  });

  it("an embedded IPv4 address is named in the reason, with the range that embeds it", () => {
    expect(classify("::ffff:10.1.2.3")).toEqual({
      public: false,
      range: "10.0.0.0/8",
      purpose: "private-use (RFC 1918), as 10.1.2.3 inside ::ffff:0:0/96, IPv4-mapped (RFC 4291)",
    });
  });
});

describe("IP address text", () => {
  it.each(["1.2.3", "1.2.3.4.5", "01.2.3.4", "256.0.0.1", "1.2.3.-1", "1::2::3", "12345::", "::g", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7::8", "1:2:3:4:5:6:7", ":1::", "fe80::1%eth0", "[::1]", ""])(
    "refuses %j",
    (text) => {
      expect(parseIpAddress(text)).toBeNull();
    },
  );

  it.each([
    ["2001:DB8:0:0:0:0:2:1", "2001:db8::2:1"],
    ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"],
    ["2001:0:0:1:0:0:0:1", "2001:0:0:1::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["0:0:0:0:0:0:0:1", "::1"],
    ["::", "::"],
    ["1::", "1::"],
    ["::ffff:c000:201", "::ffff:192.0.2.1"],
    ["::1.2.3.4", "::102:304"],
    ["10.0.0.1", "10.0.0.1"],
  ])("writes %s as %s (RFC 5952)", (text, canonical) => {
    expect(formatIpAddress(parseIpAddress(text)!)).toBe(canonical);
  });

  it("agrees with the WHATWG URL parser on 2,000 random IPv6 addresses, runs of zeros included", () => {
    const random = mulberry32(6890);
    for (let n = 0; n < 2000; n++) {
      const words = Array.from({ length: 8 }, () => (random() < 0.4 ? 0 : Math.floor(random() * 0x10000)));
      const text = words.map((w) => w.toString(16)).join(":");
      const url = new URL(`http://[${text}]/`).hostname.slice(1, -1);
      const address = parseIpAddress(text)!;
      expect(parseIpAddress(url)).toEqual(address);
      // The URL parser writes IPv4-mapped addresses in hex; RFC 5952 §5 dots their IPv4 part.
      if (!url.startsWith("::ffff:")) expect(formatIpAddress(address)).toBe(url);
    }
  });
});
