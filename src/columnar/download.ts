// GET /v1/dataset/:id/:version/:name.parquet (docs/columnar.md): the version's Parquet twin,
// served as "PAR1", its parts' row groups in order and its tail, read from R2 piece by piece
// without joining them anywhere. Same rules as the other downloads: ETag, Range/If-Range/206/416,
// immutable caching for a version id. Until the twin is built: 503 parquet_pending, never cached.
import { ApiError } from "../model/errors.ts";
import { ifRangeAllows, parseByteRange } from "../read/byte-range.ts";
import type { TwinRow } from "../read/store.ts";
import { MAGIC } from "./parquet/index.ts";
import { madeTail } from "./tail-object.ts";
import { PARQUET_MEDIA_TYPE } from "../metadata/urls.ts";
import type { TableSchema } from "../schema/table-schema.ts";


/** How long a client waits before asking again for a twin still being built. */
export const PENDING_RETRY_SECONDS = 5;

interface Piece {
  bytes: number;
  open: (offset: number, length: number) => Promise<ReadableStream<Uint8Array>>;
}

function pieces(bucket: R2Bucket, schema: TableSchema, twin: TwinRow): Piece[] {
  const object = (key: string) => async (offset: number, length: number) => {
    const found = await bucket.get(key, { range: { offset, length } });
    if (!found) throw new Error(`parquet object missing: ${key}`);
    return found.body;
  };
  const bytes = (made: Uint8Array) => async (offset: number, length: number) => new Blob([made.slice(offset, offset + length)]).stream();
  // A tail stored by an older build is read; else it is made from the parts' metadata (tail-object.ts).
  const tail = twin.tailKey !== null ? object(twin.tailKey) : async (offset: number, length: number) => bytes(await madeTail(bucket, schema, twin))(offset, length);
  return [
    { bytes: MAGIC.length, open: bytes(MAGIC) },
    ...twin.parts.map((part) => ({ bytes: part.dataBytes, open: object(part.key) })),
    { bytes: twin.tailBytes, open: tail },
  ];
}

/** Bytes [start, end] of the pieces laid end to end, each piece read only for what it holds of them. */
function rangeStream(list: readonly Piece[], start: number, end: number): ReadableStream<Uint8Array> {
  let index = 0;
  let pieceStart = 0;
  let current: ReadableStreamDefaultReader<Uint8Array> | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (current) {
          const { done, value } = await current.read();
          if (!done) return controller.enqueue(value);
          current = null;
        }
        const piece = list[index];
        if (!piece || pieceStart > end) return controller.close();
        const from = Math.max(start, pieceStart);
        const to = Math.min(end, pieceStart + piece.bytes - 1);
        if (from <= to) current = (await piece.open(from - pieceStart, to - from + 1)).getReader();
        pieceStart += piece.bytes;
        index++;
      }
    },
    async cancel(reason) {
      await current?.cancel(reason);
    },
  });
}

/** The twin's answer: the file (or one range of it), or 503 while it is not built. */
export function twinResponse(bucket: R2Bucket, request: Request, version: { id: string; schema: TableSchema }, fileName: string, twin: TwinRow | null, headers: Headers): Response {
  const versionId = version.id;
  if (twin === null || twin.state !== "ready") {
    const detail =
      twin?.state === "failed"
        ? `The Parquet file of version ${versionId} could not be built (${twin.error ?? "no reason recorded"}); the CSV and gzip downloads are unaffected.`
        : `The Parquet file of version ${versionId} is being built; ask again in ${PENDING_RETRY_SECONDS} s.`;
    throw new ApiError("parquet_pending", detail, { state: twin?.state ?? "pending" }, { "Retry-After": String(PENDING_RETRY_SECONDS) });
  }
  const etag = `"${versionId}.parquet"`;
  const length = twin.fileBytes;
  headers.set("ETag", etag);
  headers.set("Content-Type", PARQUET_MEDIA_TYPE);
  // Stored names are [A-Za-z0-9._-] only (read/download-name.ts): no quoting issue.
  headers.set("Content-Disposition", `attachment; filename="${fileName}"`);
  headers.set("Accept-Ranges", "bytes");
  const list = pieces(bucket, version.schema, twin);
  const range = ifRangeAllows(request.headers.get("if-range") ?? undefined, etag) ? parseByteRange(request.headers.get("range") ?? undefined, length) : null;
  if (range === "unsatisfiable") throw new ApiError("range_not_satisfiable", `The file has ${length} bytes.`, {}, { "Content-Range": `bytes */${length}` });
  const [start, end] = range === null ? [0, length - 1] : [range.start, range.end];
  const count = end - start + 1;
  headers.set("Content-Length", String(count));
  if (range !== null) headers.set("Content-Range", `bytes ${start}-${end}/${length}`);
  const body = rangeStream(list, start, end).pipeThrough(new FixedLengthStream(count));
  return new Response(body, { status: range === null ? 200 : 206, headers, encodeBody: "manual" });
}
