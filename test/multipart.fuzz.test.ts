// Chunking independence: seeded random bodies whose parts are full of near-delimiters
// (`\r\n--`, boundary prefixes, the boundary without its CRLF) parse to exactly what was
// generated however the bytes are cut into chunks, from one byte upward, and however the
// consumer reads, leaves or cancels part bodies. Truncations fail the same way under every cut.

import { describe, expect, it } from "vitest";
import { MultipartError } from "../src/write/multipart/index.ts";
import { mulberry32 } from "./helpers/random.ts";
import { chunkedStream, concat, encode, readParts, rejectionOf } from "./multipart.helpers.ts";
import type { ReadPart } from "./multipart.helpers.ts";

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const int = (random: Random, max: number): number => Math.floor(random() * (max + 1));

const BCHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'()+_,-./:=?";

function randomBoundary(random: Random): string {
  const kind = int(random, 3);
  if (kind === 0) return "b";
  if (kind === 1) return "----WebKitFormBoundary" + Array.from({ length: 16 }, () => pick(random, [...BCHARS.slice(0, 62)])).join("");
  const length = 1 + int(random, 69);
  let boundary = Array.from({ length }, () => (random() < 0.1 ? " " : pick(random, [...BCHARS]))).join("");
  boundary = boundary.replace(/ +$/, "") || "x";
  return boundary;
}

/** Bytes built from pieces chosen to look like delimiters without being one. */
function trickyBytes(random: Random, boundary: string, maxPieces: number): Uint8Array {
  const delimiter = `\r\n--${boundary}`;
  const pieces = [
    () => encode("\r"),
    () => encode("\n"),
    () => encode("\r\n"),
    () => encode("-"),
    () => encode("\r\n--"),
    () => encode(`--${boundary}`),
    () => encode(`--${boundary}--`),
    () => encode(boundary),
    () => encode(delimiter.slice(0, 1 + int(random, delimiter.length - 2))),
    () => encode(`\r\r\n--${boundary.slice(0, -1)}`),
    () => encode("a,b,c\r\n1,2,3\r\n"),
    () => encode("ü€\0"),
    () => Uint8Array.from({ length: 1 + int(random, 40) }, () => int(random, 255)),
  ];
  const count = int(random, maxPieces);
  const bytes = concat(encode("\r\n"), ...Array.from({ length: count }, () => pick(random, pieces)()));
  // Where the pieces happen to form a delimiter (or start with `--boundary`), break it up.
  const needle = encode(delimiter);
  for (let at = indexOf(bytes, needle); at >= 0; at = indexOf(bytes, needle)) bytes[at + 2] = 0x2e;
  return bytes.subarray(2);
}

function indexOf(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

interface Case {
  boundary: string;
  bytes: Uint8Array;
  parts: ReadPart[];
  /** Where the first boundary line's `--boundary` ends, and where the close delimiter ends. */
  firstBoundaryEnd: number;
  closeEnd: number;
}

function randomCase(seed: number): Case {
  const random = mulberry32(seed);
  const boundary = randomBoundary(random);
  const padding = (): string => Array.from({ length: int(random, 3) }, () => pick(random, [" ", "\t"])).join("");
  const out: Uint8Array[] = [];
  const preamble = random() < 0.5 ? new Uint8Array() : trickyBytes(random, boundary, 6);
  if (preamble.length > 0) out.push(preamble, encode("\r\n"));
  const firstBoundaryEnd = preamble.length + (preamble.length > 0 ? 2 : 0) + 2 + boundary.length;
  out.push(encode(`--${boundary}${padding()}\r\n`));
  const parts: ReadPart[] = [];
  const count = 1 + int(random, 5);
  for (let i = 0; i < count; i++) {
    const name = pick(random, ["collection", "dataset", "a b", "ünï", "x"]) + i;
    const fileName = random() < 0.5 ? null : pick(random, ["data.csv", "my file.csv", "naïve.csv.gz"]);
    const contentType = random() < 0.5 ? null : pick(random, ["text/csv", "application/json; charset=utf-8"]);
    const body = random() < 0.2 ? new Uint8Array() : trickyBytes(random, boundary, 30);
    let head = `Content-Disposition: form-data; name="${name}"${fileName === null ? "" : `; filename="${fileName}"`}\r\n`;
    if (contentType !== null) head += `Content-Type: ${contentType}\r\n`;
    if (random() < 0.3) head = `X-Extra: --${boundary}\r\n` + head;
    out.push(encode(`${head}\r\n`), body);
    const last = i === count - 1;
    out.push(encode(`\r\n--${boundary}${last ? "--" : ""}`));
    if (!last) out.push(encode(`${padding()}\r\n`));
    parts.push({ name, fileName, contentType, mediaType: contentType?.split(";")[0] ?? null, body });
  }
  const closeEnd = out.reduce((n, b) => n + b.length, 0);
  if (random() < 0.5) out.push(encode(`${padding()}\r\n`), trickyBytes(random, boundary, 4), encode(`\r\n--${boundary}\r\n`));
  return { boundary, bytes: concat(...out), parts, firstBoundaryEnd, closeEnd };
}

function chunkings(random: Random, boundary: string): Array<[string, () => number]> {
  const m = boundary.length + 4;
  return [
    ["whole", () => Number.MAX_SAFE_INTEGER],
    ["1", () => 1],
    ["2", () => 2],
    [`${m - 1}`, () => m - 1],
    [`${m}`, () => m],
    [`${m + 1}`, () => m + 1],
    ["random small", () => 1 + int(random, 2 * m)],
    ["random large", () => 1 + int(random, 4096)],
  ];
}

describe("chunking independence", () => {
  it("parses 150 random bodies identically under every chunking and read pattern", async () => {
    for (let seed = 1; seed <= 150; seed++) {
      const c = randomCase(seed);
      const random = mulberry32(seed * 7919);
      for (const [label, size] of chunkings(random, c.boundary)) {
        const ways = c.parts.map(() => pick(random, ["read", "read", "leave", "cancel"] as const));
        const got = await readParts(chunkedStream(c.bytes, size), c.boundary, { skip: (i) => ways[i] ?? "read" });
        const expected = c.parts.map((p, i) => ({ ...p, body: ways[i] === "read" ? p.body : null }));
        expect(got, `seed ${seed}, chunks ${label}`).toEqual(expected);
      }
    }
  }, 60_000);

  it("fails truncated bodies with the same reason under every chunking", async () => {
    for (let seed = 1; seed <= 60; seed++) {
      const c = randomCase(seed);
      const random = mulberry32(seed * 104729);
      for (let k = 0; k < 4; k++) {
        const cut = int(random, c.closeEnd - 1);
        const reason = cut < c.firstBoundaryEnd ? "missing_boundary" : "unexpected_end";
        for (const [label, size] of chunkings(random, c.boundary)) {
          const error = await rejectionOf(readParts(chunkedStream(c.bytes.subarray(0, cut), size), c.boundary));
          expect(error, `seed ${seed}, cut ${cut}, chunks ${label}`).toBeInstanceOf(MultipartError);
          expect((error as MultipartError).reason, `seed ${seed}, cut ${cut}, chunks ${label}`).toBe(reason);
        }
      }
    }
  }, 60_000);
});
