// Deterministic benchmark CSVs: a seeded PRNG drives realistic mixed columns (ids, names with
// quotes and commas, floats, dates, free text with the odd quoted line break), so every run
// measures the same bytes and the CSV validator sees the quoting it meets in real files.
import { closeSync, openSync, writeSync } from "node:fs";

export const HEADER = "id,customer,email,city,amount,quantity,ordered_at,shipped_on,status,note\n";

/** mulberry32: tiny, fast and good enough to make varied test data from a 32-bit seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST = ["Ana", "Bo", "Chen", "Dmitri", "Eve", "Fatima", "Grace", "Hiro", "Ines", "José", "Kwame", "Lena", "Mia", "Noah", "Olu", "Priya"];
const LAST = ["Smith", "O'Brien", "García", "Nguyen", "Müller", "Okafor", "Rossi", "Kowalski", "Tanaka", "Dubois", "Silva", "Haddad"];
const CITIES = ["Lagos", "Paris", "\"Washington, D.C.\"", "São Paulo", "Tokyo", "\"Portland, OR\"", "Zürich", "Nairobi", "Oslo", "Lima"];
const STATUS = ["paid", "shipped", "pending", "refunded", "cancelled"];
const WORDS = ["fast", "delivery", "gift", "wrap", "fragile", "call", "before", "leave", "at", "door", "reorder", "bulk", "discount"];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function quoted(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

function customer(random: () => number): string {
  const first = pick(random, FIRST);
  const last = pick(random, LAST);
  const r = random();
  if (r < 0.3) return quoted(`${last}, ${first}`);
  if (r < 0.4) return quoted(`${first} "${pick(random, WORDS)}" ${last}`);
  return `${first} ${last}`;
}

function note(random: () => number): string {
  const r = random();
  if (r < 0.4) return "";
  const words = Array.from({ length: 2 + Math.floor(random() * 8) }, () => pick(random, WORDS)).join(" ");
  if (r < 0.5) return quoted(`${words}, "${pick(random, WORDS)}"`);
  if (r < 0.52) return quoted(`${words}\nsecond line`);
  return words;
}

function isoDate(random: () => number, withTime: boolean): string {
  const ms = Date.UTC(2020, 0, 1) + Math.floor(random() * 5 * 365 * 86_400_000);
  const iso = new Date(ms).toISOString();
  return withTime ? iso : iso.slice(0, 10);
}

/** One data row (ending in `\n`) for record `id`. */
export function csvRow(random: () => number, id: number): string {
  const name = customer(random);
  const email = `user${Math.floor(random() * 1e6)}@example.${pick(random, ["com", "org", "net"])}`;
  const amount = (random() * 5000).toFixed(2);
  const quantity = 1 + Math.floor(random() * 20);
  const shipped = random() < 0.2 ? "" : isoDate(random, false);
  const fields = [id, name, email, pick(random, CITIES), amount, quantity, isoDate(random, true), shipped, pick(random, STATUS), note(random)];
  return fields.join(",") + "\n";
}

/** `count` data rows (no header) starting at record `firstId`. */
export function csvRows(seed: number, firstId: number, count: number): Uint8Array {
  const random = seededRandom(seed);
  let text = "";
  for (let i = 0; i < count; i++) text += csvRow(random, firstId + i);
  return new TextEncoder().encode(text);
}

export interface GeneratedCsv {
  path: string;
  bytes: number;
  rows: number;
}

/** Writes a header plus whole rows to `path`, stopping at the last row that fits `targetBytes`. */
export function writeCsvFile(path: string, targetBytes: number, seed: number): GeneratedCsv {
  const random = seededRandom(seed);
  const encoder = new TextEncoder();
  const fd = openSync(path, "w");
  try {
    let bytes = writeSync(fd, encoder.encode(HEADER));
    let rows = 0;
    for (;;) {
      let chunk = "";
      let chunkBytes = 0;
      let full = false;
      while (chunk.length < 1 << 20) {
        const row = csvRow(random, rows + 1);
        const rowBytes = Buffer.byteLength(row);
        if (bytes + chunkBytes + rowBytes > targetBytes) {
          full = true;
          break;
        }
        chunk += row;
        chunkBytes += rowBytes;
        rows++;
      }
      bytes += writeSync(fd, encoder.encode(chunk));
      if (full) return { path, bytes, rows };
    }
  } finally {
    closeSync(fd);
  }
}
