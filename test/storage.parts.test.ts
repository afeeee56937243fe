// Segments as sequences of independently decodable parts (docs/storage-layout.md): ingest cuts
// parts only at record ends, each part inflates alone from its byte range, the rows endpoint
// reads only the part holding an offset, compaction keeps the parts, and older segments
// without part rows still read.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../src/config.ts";
import { CsvRecordDecoder } from "../src/csv/index.ts";
import { INFER_ALL, ingestCsv } from "../src/write/ingest/ingest.ts";
import { readRowWindow } from "../src/read/row-reader.ts";
import { compactVersion } from "../src/maintenance/compaction.ts";
import { getVersionSegmentsWithParts } from "../src/storage/datasets-db.ts";
import { collectPendingObjects } from "../src/maintenance/collect.ts";
import { inflateSegment } from "../src/storage/segment-inflate.ts";
import { openSegment } from "../src/storage/segment-store.ts";
import type { SegmentPart } from "../src/wire/parted-segment.ts";
import { appendRows, createDataset, send } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { MERGE_ALL, TIMINGS } from "./helpers/storage.ts";
import { encodeRows, mulberry32, randomInt, randomTable } from "./helpers/random.ts";
import type { SegmentRow } from "../src/model/dataset.ts";

const COLUMNS = ["id", "name", "amount", "note"];
const ROWS = 150_000;
const WORDS = ["alpha", "beta", "gamma", "delta", "Zürich", "naïve", "quote \"x\"", "comma, inside"];

/** ~12 MB of rows from a seeded generator, kept as cells so windows can be checked directly. */
function bigTable(): string[][] {
  const random = mulberry32(7);
  return Array.from({ length: ROWS }, (_, i) => [
    String(i),
    WORDS[randomInt(random, 0, WORDS.length - 1)]!,
    (random() * 1e6).toFixed(3),
    "note ".repeat(randomInt(random, 4, 14)) + String(randomInt(random, 0, 1e9)),
  ]);
}

function encode(rows: string[][]): string {
  return rows.map((row) => row.map((cell) => (/[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell)).join(",") + "\n").join("");
}

async function partText(key: string, part: SegmentPart): Promise<string> {
  const stream = await openSegment(env.CONTENT, key, { offset: part.compressedOffset, length: part.compressedBytes });
  return new Response(inflateSegment(stream)).text();
}

/** Each part alone decodes to whole records: its row count (plus the header in a first part). */
async function expectWholeRecords(segment: SegmentRow, headerInFirst: boolean): Promise<string> {
  const parts = segment.parts ?? [];
  let text = "";
  let offset = 0;
  for (const [i, part] of parts.entries()) {
    expect(part.compressedOffset).toBe(offset);
    offset += part.compressedBytes;
    const own = await partText(segment.key, part);
    expect(new TextEncoder().encode(own).length).toBe(part.rawBytes);
    const decoder = new CsvRecordDecoder({ midFile: i > 0 });
    const records = [...decoder.push(own), ...decoder.finish()];
    expect(records.length, `part ${i}`).toBe(part.rowCount + (headerInFirst && i === 0 ? 1 : 0));
    if (i < parts.length - 1) expect(own.endsWith("\n")).toBe(true);
    text += own;
  }
  expect(offset).toBe(segment.compressedBytes);
  expect(parts.reduce((n, p) => n + p.rowCount, 0)).toBe(segment.rowCount);
  return text;
}

interface RowsBody {
  rows: string[][];
  total: number;
}

async function rowsAt(key: TestKey, id: string, version: string, offset: number, limit: number): Promise<RowsBody> {
  const response = await send("GET", `/v1/dataset/${id}/${version}/rows?offset=${offset}&limit=${limit}`, { key });
  expect(response.status).toBe(200);
  return (await response.json()) as RowsBody;
}

async function gzBytes(key: TestKey, id: string, version: string): Promise<Uint8Array> {
  const response = await send("GET", `/v1/dataset/${id}/${version}/data.csv.gz`, { key });
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
}

async function gunzip(bytes: Uint8Array): Promise<string> {
  return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
}

describe("segment parts", { timeout: 60_000 }, () => {
  let owner: TestKey;
  let table: string[][];
  let csv: string;
  let big: { id: string; version: string };
  let compacted = "";

  beforeAll(async () => {
    owner = await createKey("parts-team", "parts-owner");
    table = bigTable();
    csv = COLUMNS.join(",") + "\n" + encode(table);
    // Declared as text with no missing values, so /rows answers the cells as the table holds them.
    const schema = { fields: COLUMNS.map((name) => ({ name, type: "string" })), missingValues: [] };
    big = await createDataset(owner, csv, { name: "parts", schema });
  }, 60_000);

  it("a large create is one object in several parts, cut at record ends, each decoding alone", async () => {
    expect(csv.length).toBeGreaterThan(11_000_000);
    const [segment, ...others] = await getVersionSegmentsWithParts(env.DB, big.version);
    expect(others).toHaveLength(0);
    expect(segment?.parts?.length).toBeGreaterThanOrEqual(3);
    expect(await expectWholeRecords(segment!, true)).toBe(csv);
  });

  it("rows in the first, a middle and the last part equal the table, from the part's range alone", async () => {
    const [segment] = await getVersionSegmentsWithParts(env.DB, big.version);
    const parts = segment!.parts!;
    const firstOfLast = ROWS - parts[parts.length - 1]!.rowCount;
    const middle = parts.slice(0, Math.floor(parts.length / 2)).reduce((n, p) => n + p.rowCount, 0);
    for (const offset of [0, 5, middle - 2, middle, firstOfLast - 1, firstOfLast, ROWS - 3]) {
      const body = await rowsAt(owner, big.id, big.version, offset, 5);
      expect(body.total).toBe(ROWS);
      expect(body.rows, `offset ${offset}`).toEqual(table.slice(offset, offset + 5));
    }
    expect(await gunzip(await gzBytes(owner, big.id, big.version))).toBe(csv);
  });

  it("reads exactly the byte range of the one part holding a deep offset", async () => {
    const [segment] = await getVersionSegmentsWithParts(env.DB, big.version);
    const parts = segment!.parts!;
    const opened: unknown[] = [];
    const offset = parts[0]!.rowCount + parts[1]!.rowCount + 10;
    const rows = await readRowWindow(
      [segment!],
      (key, range) => {
        opened.push(range);
        return openSegment(env.CONTENT, key, range);
      },
      { offset, limit: 3, maxChars: 1e6 },
    );
    expect(rows).toEqual(table.slice(offset, offset + 3));
    expect(opened).toEqual([{ offset: parts[2]!.compressedOffset, length: parts[2]!.compressedBytes }]);
  });

  it("compaction keeps the parts: rows across former segment boundaries and the .gz are unchanged", async () => {
    const tail: string[][] = [];
    let version = big.version;
    for (let i = 0; i < 3; i++) {
      const rows = [[`t${i}`, "tail", String(i), `multi\nline ${i}`], [`u${i}`, "tail", String(i), ""]];
      tail.push(...rows);
      const response = await appendRows(owner, big.id, encode(rows));
      expect(response.status).toBe(201);
      version = ((await response.json()) as { version: string }).version;
    }
    const offsets = [0, ROWS - 1, ROWS, ROWS + 1, ROWS + 3, ROWS + 5];
    const before = await Promise.all(offsets.map((o) => rowsAt(owner, big.id, version, o, 4)));
    const gzBefore = await gzBytes(owner, big.id, version);
    const partsBefore = (await getVersionSegmentsWithParts(env.DB, version))[0]!.parts!;

    expect(await compactVersion(env, big.id, version, MERGE_ALL, TIMINGS)).toBe("compacted");
    compacted = version;

    const [merged, ...others] = await getVersionSegmentsWithParts(env.DB, version);
    expect(others).toHaveLength(0);
    // The create's parts keep their places; small appended segments may join its last one.
    const kept = partsBefore.length - 1;
    expect(merged!.parts!.slice(0, kept)).toEqual(partsBefore.slice(0, kept));
    expect(merged!.parts![kept]!.compressedOffset).toBe(partsBefore[kept]!.compressedOffset);
    const text = await expectWholeRecords(merged!, true);
    expect(text).toBe(csv + encode(tail));
    const after = await Promise.all(offsets.map((o) => rowsAt(owner, big.id, version, o, 4)));
    expect(after).toEqual(before);
    expect(after[3]!.rows).toEqual(tail.slice(1, 5));
    expect(await gzBytes(owner, big.id, version)).toEqual(gzBefore);
  });

  it("a segment without part rows (stored before parts) is read whole, as before", async () => {
    const [segment] = await getVersionSegmentsWithParts(env.DB, big.version);
    const legacy: SegmentRow = { ...segment!, parts: undefined };
    for (const offset of [0, 77_777, ROWS - 1]) {
      const rows = await readRowWindow([legacy], (key, range) => openSegment(env.CONTENT, key, range), { offset, limit: 3, maxChars: 1e6 });
      expect(rows).toEqual(table.slice(offset, offset + 3));
    }
  });

  it("the clean-up's deletion of an unreferenced segment takes its part rows along", async () => {
    const [merged] = await getVersionSegmentsWithParts(env.DB, compacted);
    expect(merged!.parts!.length).toBeGreaterThan(1);
    // Unreferenced and recorded by hand: in the service a later compaction or a delete does both.
    await env.DB.batch([
      env.DB.prepare("DELETE FROM version_segments WHERE segment_key = ?").bind(merged!.key),
      env.DB.prepare("INSERT INTO pending_objects (key, dataset_id, reason, collect_after) VALUES (?, ?, 'replaced', 0)").bind(merged!.key, big.id),
    ]);
    expect(await collectPendingObjects(env, Date.now())).toMatchObject({ deleted: 1 });
    const left = await env.DB.prepare("SELECT COUNT(*) AS n FROM segment_parts WHERE segment_key = ?").bind(merged!.key).first<{ n: number }>();
    expect(left?.n).toBe(0);
  });

  it("deleting the dataset removes its part rows with its segments", async () => {
    const keys = (await getVersionSegmentsWithParts(env.DB, big.version)).map((s) => s.key);
    expect((await send("DELETE", `/v1/dataset/${big.id}`, { key: owner })).status).toBe(204);
    const left = await env.DB.prepare("SELECT COUNT(*) AS n FROM segment_parts WHERE segment_key IN (SELECT value FROM json_each(?))")
      .bind(JSON.stringify(keys))
      .first<{ n: number }>();
    expect(left?.n).toBe(0);
  });
});

describe("part cuts", () => {
  /** Streams `text` into ingest in small odd-sized chunks, cutting parts every `partRawBytes`. */
  async function ingest(text: string, partRawBytes: number): Promise<SegmentRow> {
    const bytes = new TextEncoder().encode(text);
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 97) controller.enqueue(bytes.slice(at, at + 97));
        controller.close();
      },
    });
    const key = `datasets/parts-test/segments/${crypto.randomUUID()}`;
    const ingested = await ingestCsv(source, { mode: { kind: "table" }, typing: INFER_ALL, limits: DEFAULT_LIMITS, bucket: env.CONTENT, key, partRawBytes });
    return ingested.segment;
  }

  async function window(segment: SegmentRow, offset: number, limit: number): Promise<string[][]> {
    return readRowWindow([segment], (key, range) => openSegment(env.CONTENT, key, range), { offset, limit, maxChars: 1e6 });
  }

  it("never cuts inside a quoted field, however many line breaks the fields hold", async () => {
    const random = mulberry32(42);
    const rows = randomTable(random, 3, 600).map((row, i) => [String(i), `line\n${row[0]}\r\nmore`, ...row.slice(1)]);
    const text = "a,b,c,d\r\n" + encodeRows(rows, "\r\n", random);
    const segment = await ingest(text, 512);
    expect(segment.parts!.length).toBeGreaterThan(20);
    expect(await expectWholeRecords(segment, true)).toBe(text);
    for (let offset = 0; offset < rows.length; offset += 37) {
      expect(await window(segment, offset, 3), `offset ${offset}`).toEqual(rows.slice(offset, offset + 3));
    }
  });

  it("counts blank lines between records as rows of the part that holds them", async () => {
    const lines = Array.from({ length: 400 }, (_, i) => (i % 3 === 1 ? "" : `v${i}`));
    const text = "x\n" + lines.map((l) => l + "\n").join("");
    const segment = await ingest(text + "\n\n", 64);
    expect(segment.rowCount).toBe(400);
    expect(segment.parts!.length).toBeGreaterThan(10);
    expect(await expectWholeRecords(segment, true)).toBe(text);
    for (let offset = 0; offset < lines.length; offset += 13) {
      const expected = lines.slice(offset, offset + 2).map((l) => [l]);
      expect(await window(segment, offset, 2), `offset ${offset}`).toEqual(expected);
    }
  });
});
