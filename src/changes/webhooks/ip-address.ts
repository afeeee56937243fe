// IP addresses as bytes, from and to their text forms (RFC 4291 §2.2, RFC 5952), for the ranges
// a webhook may not deliver to (special-addresses.ts) and the reason a refusal records. Pure.

/** Four bytes (IPv4) or sixteen (IPv6). */
export type IpAddress = Uint8Array;

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const GROUP = /^[0-9a-fA-F]{1,4}$/;

function parseIpv4(text: string): IpAddress | null {
  const match = IPV4.exec(text);
  return match ? Uint8Array.from(match.slice(1, 5), Number) : null;
}

/** The 16-bit groups of one side of "::", a trailing dotted quad counting as two. */
function groups(side: string): number[] | null {
  if (side === "") return [];
  const parts = side.split(":");
  const out: number[] = [];
  for (const [i, part] of parts.entries()) {
    const v4 = i === parts.length - 1 && part.includes(".") ? parseIpv4(part) : null;
    if (v4) out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
    else if (GROUP.test(part)) out.push(Number.parseInt(part, 16));
    else return null;
  }
  return out;
}

function parseIpv6(text: string): IpAddress | null {
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const all = [...head, ...Array<number>(missing).fill(0), ...tail];
  return Uint8Array.from(all.flatMap((group) => [group >> 8, group & 0xff]));
}

/** An address in dotted-quad or RFC 4291 §2.2 text (no zone, no brackets); null otherwise. */
export function parseIpAddress(text: string): IpAddress | null {
  return text.includes(":") ? parseIpv6(text) : parseIpv4(text);
}

/** Dotted quad, or RFC 5952 §4 text: lower case, the longest run of zero groups as "::". */
export function formatIpAddress(address: IpAddress): string {
  if (address.length === 4) return address.join(".");
  const words = Array.from({ length: 8 }, (_, i) => (address[2 * i]! << 8) | address[2 * i + 1]!);
  // RFC 5952 §5: an IPv4-mapped address keeps its IPv4 part dotted.
  if (words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff) return `::ffff:${address.subarray(12).join(".")}`;
  let best = { start: -1, length: 1 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = words.map((w) => w.toString(16));
  if (best.start < 0) return hex.join(":");
  return `${hex.slice(0, best.start).join(":")}::${hex.slice(best.start + best.length).join(":")}`;
}

/** Whether `address` lies in `prefix`/`bits` (both of one family). */
export function inPrefix(address: IpAddress, prefix: IpAddress, bits: number): boolean {
  if (address.length !== prefix.length) return false;
  const whole = bits >> 3;
  for (let i = 0; i < whole; i++) if (address[i] !== prefix[i]) return false;
  const rest = bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (address[whole]! & mask) === (prefix[whole]! & mask);
}
