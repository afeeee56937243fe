// The DNS messages a webhook's address lookup sends and reads (RFC 1035 §4.1, carried by DNS over
// HTTPS, RFC 8484): a query for one name's A or AAAA records, and the addresses its answer holds.
// Pure.
import type { IpAddress } from "./ip-address.ts";

export const TYPE_A = 1;
export const TYPE_AAAA = 28;
const CLASS_IN = 1;
const HEADER_BYTES = 12;

/** RFC 1035 §4.1.1 RCODE names, for a recorded reason. */
const RCODES: Record<number, string> = { 0: "NOERROR", 1: "FORMERR", 2: "SERVFAIL", 3: "NXDOMAIN", 4: "NOTIMP", 5: "REFUSED" };

export function rcodeName(rcode: number): string {
  return RCODES[rcode] ?? `RCODE ${rcode}`;
}

/**
 * A recursive query (RD set) for `name`'s records of `type`, with ID 0 as RFC 8484 §4.1 asks of
 * DoH clients. `name` is an ASCII host name (the URL parser has already made an IDN Punycode).
 */
export function encodeQuery(name: string, type: number): Uint8Array {
  const labels = name.replace(/\.$/, "").split(".");
  if (labels.some((label) => label.length === 0 || label.length > 63) || name.length > 253 || /[^\x21-\x7e]/.test(name)) throw new Error(`not a DNS name: ${name}`);
  const out = new Uint8Array(HEADER_BYTES + labels.reduce((n, label) => n + 1 + label.length, 1) + 4);
  const view = new DataView(out.buffer);
  view.setUint16(2, 0x0100); // RD
  view.setUint16(4, 1); // QDCOUNT
  let at = HEADER_BYTES;
  for (const label of labels) {
    out[at++] = label.length;
    for (let i = 0; i < label.length; i++) out[at++] = label.charCodeAt(i);
  }
  out[at++] = 0;
  view.setUint16(at, type);
  view.setUint16(at + 2, CLASS_IN);
  return out;
}

export type DnsAnswer =
  | { ok: true; rcode: number; addresses: IpAddress[] }
  | { ok: false; error: string };

class Malformed extends Error {}

/** Reads the (possibly compressed, RFC 1035 §4.1.4) name at `at`; returns it and where it ends. */
function readName(bytes: Uint8Array, start: number): { name: string; end: number } {
  const labels: string[] = [];
  let at = start;
  let end = -1;
  for (let jumps = 0; ; ) {
    const length = bytes[at];
    if (length === undefined) throw new Malformed("a name runs past the message");
    if (length === 0) {
      if (end < 0) end = at + 1;
      return { name: labels.join("."), end };
    }
    if ((length & 0xc0) === 0xc0) {
      const low = bytes[at + 1];
      if (low === undefined || ++jumps > 64) throw new Malformed("a name's pointer is cut or loops");
      if (end < 0) end = at + 2;
      at = ((length & 0x3f) << 8) | low;
      continue;
    }
    if (length > 63) throw new Malformed("a label longer than 63 bytes");
    if (at + 1 + length > bytes.length) throw new Malformed("a label runs past the message");
    labels.push(String.fromCharCode(...bytes.subarray(at + 1, at + 1 + length)).toLowerCase());
    at += 1 + length;
  }
}

/**
 * The answer to `encodeQuery(name, type)`: its RCODE and the addresses of that type in its answer
 * section (a CNAME chain's target records included). An answer that is not a response to that
 * question, is truncated or malformed, is an error: its addresses cannot be trusted to be all.
 */
export function decodeAnswer(bytes: Uint8Array, name: string, type: number): DnsAnswer {
  try {
    if (bytes.length < HEADER_BYTES) throw new Malformed("shorter than a DNS header");
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const flags = view.getUint16(2);
    if ((flags & 0x8000) === 0) throw new Malformed("not a response");
    if (view.getUint16(0) !== 0) throw new Malformed("an answer to another query (its ID is not 0)");
    if (flags & 0x0200) throw new Malformed("truncated");
    // An error RCODE is the answer, whatever else the message holds.
    if ((flags & 0x000f) !== 0) return { ok: true, rcode: flags & 0x000f, addresses: [] };
    const questions = view.getUint16(4);
    const answers = view.getUint16(6);
    let at = HEADER_BYTES;
    const asked = name.replace(/\.$/, "").toLowerCase();
    for (let q = 0; q < questions; q++) {
      const question = readName(bytes, at);
      if (question.end + 4 > bytes.length) throw new Malformed("a question runs past the message");
      if (question.name !== asked || view.getUint16(question.end) !== type) throw new Malformed(`an answer to another question (${question.name})`);
      at = question.end + 4;
    }
    if (questions !== 1) throw new Malformed("not one question");
    const addresses: IpAddress[] = [];
    for (let a = 0; a < answers; a++) {
      const owner = readName(bytes, at);
      if (owner.end + 10 > bytes.length) throw new Malformed("a record runs past the message");
      const recordType = view.getUint16(owner.end);
      const recordClass = view.getUint16(owner.end + 2);
      const length = view.getUint16(owner.end + 8);
      const data = owner.end + 10;
      if (data + length > bytes.length) throw new Malformed("a record's data runs past the message");
      if (recordClass === CLASS_IN && recordType === type) {
        if (length !== (type === TYPE_A ? 4 : 16)) throw new Malformed("an address of the wrong length");
        addresses.push(bytes.slice(data, data + length));
      }
      at = data + length;
    }
    return { ok: true, rcode: 0, addresses };
  } catch (error: unknown) {
    if (error instanceof Malformed) return { ok: false, error: `malformed DNS answer: ${error.message}` };
    throw error;
  }
}
