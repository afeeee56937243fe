// GET /v1/dataset/:id/:version/:file[.gz] — a version's content (docs/api.md `source`), and its
// Parquet twin at :name.parquet (columnar/download.ts).
// The `.gz` form is one single-member gzip joined from the stored segments, never recompressed;
// the plain form passes that gzip through when the client accepts it, else reads the segments'
// parts a group at a time (rawRangeStream) and checks the content's CRC-32 before its last byte.
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { contentDisposition, parquetFileName } from "./download-name.ts";
import { describedByLink } from "./shapes.ts";
import { cacheControlFor, readableContent, readableFiles } from "./content.ts";
import { twinResponse } from "../columnar/download.ts";
import { askForTwin } from "../maintenance/after-commit.ts";
import { ApiError } from "../model/errors.ts";
import { acceptsGzip, clientAcceptEncoding } from "../edge/accept-encoding.ts";
import { ifRangeAllows, parseByteRange } from "./byte-range.ts";
import { rawRangeStream } from "./csv-range.ts";
import { partsOf } from "../storage/segment-parts-db.ts";
import { joinedGzipLength, joinedGzipStream } from "../wire/gzip-join.ts";
import { joinedGzipRangeStream } from "../wire/gzip-range.ts";
import { openSegment } from "../storage/segment-store.ts";
import { crc32Checked } from "../wire/crc32-stream.ts";
import { FileParamsSchema, NoQuerySchema, problemResponse } from "../http/schemas.ts";
import { readPolicy, withPolicy } from "../edge/route-policy.ts";

export const downloadRoute = withPolicy(
  createRoute({
    method: "get",
    path: "/{id}/{version}/{file}",
    summary: "Download a version's content (`.gz`: gzip; `.parquet`: its Parquet twin; otherwise text/csv)",
    description:
      "`{file}` is the stored file name (text/csv), that name plus `.gz` (the stored gzip, the record's `source`), or the name without a final `.csv` plus `.parquet`: the version as one Apache Parquet file, typed by its Table Schema, built after the commit (docs/columnar.md).",
    request: { params: FileParamsSchema, query: NoQuerySchema },
    responses: {
      200: {
        description: "The content",
        content: {
          "application/gzip": { schema: z.string().openapi({ format: "binary" }) },
          "text/csv": { schema: z.string().openapi({ format: "binary" }) },
          "application/vnd.apache.parquet": { schema: z.string().openapi({ format: "binary" }) },
        },
      },
      206: {
        description: "One byte range (`Range: bytes=…`, RFC 9110 §14) of the `.gz`, or of the CSV's own bytes, with `Content-Range`; resumes a download",
        content: {
          "application/gzip": { schema: z.string().openapi({ format: "binary" }) },
          "text/csv": { schema: z.string().openapi({ format: "binary" }) },
        },
      },
      400: problemResponse("Malformed id or version, or any query parameter"),
      404: problemResponse("No such dataset, version or file visible to the caller"),
      416: problemResponse("The range starts past the end; `Content-Range: bytes */<length>`"),
      503: problemResponse("`parquet_pending`: the Parquet file is not built yet (`Retry-After`), or its build failed for good (`\"state\": \"failed\"`)"),
    },
  }),
  readPolicy("dataset", ["describedby"]),
);

export function registerDownload(app: OpenAPIHono<AppEnv>): void {
  app.openapi(downloadRoute, async (c) => {
    const { id, version: versionRef, file } = c.req.valid("param");
    const caller = c.get("caller");
    // A name ending in .parquet may be the twin's: its rows come in the same one D1 batch.
    const { dataset, version, segments, twin } = file.endsWith(".parquet")
      ? await readableFiles(c.env.DB, id, versionRef, caller)
      : { ...(await readableContent(c.env.DB, id, versionRef, caller)), twin: null };
    const wantsGzipFile = file === `${version.fileName}.gz`;
    if (!wantsGzipFile && file !== version.fileName) {
      if (file !== parquetFileName(version.fileName)) throw new ApiError("not_found", `Version ${version.id} has no file ${file}.`);
      const headers = new Headers({ "Cache-Control": cacheControlFor(dataset, caller), Link: describedByLink(dataset.id, version.id) });
      // A superseded version's build may have been skipped (after-commit.ts): asked for now, 503
      // meanwhile. The latest's own message builds it; asking too would only race it.
      if (twin === null && version.id !== dataset.latestVersion) askForTwin(c.env, (work) => c.executionCtx.waitUntil(work), dataset.id, version.id);
      return twinResponse(c.env.CONTENT, c.req.raw, version, file, twin, headers);
    }
    const openers = segments.map((s) => () => openSegment(c.env.CONTENT, s.key));
    const gzipLength = joinedGzipLength(segments.map((s) => s.compressedBytes));
    const gzip = () => joinedGzipStream(openers, version.crc32, version.rawBytes);
    const headers = new Headers({ "Cache-Control": cacheControlFor(dataset, caller), Link: describedByLink(dataset.id, version.id) });
    if (wantsGzipFile) {
      const etag = `"${version.id}.gz"`;
      headers.set("ETag", etag);
      headers.set("Content-Type", "application/gzip");
      headers.set("Content-Disposition", contentDisposition(version.fileName, true));
      headers.set("Accept-Ranges", "bytes");
      // RFC 9110 §14.2: a Range is honoured only while If-Range (if sent) still names this file.
      const range = ifRangeAllows(c.req.header("if-range"), etag) ? parseByteRange(c.req.header("range"), gzipLength) : null;
      if (range === "unsatisfiable") {
        throw new ApiError("range_not_satisfiable", `The file has ${gzipLength} bytes.`, {}, { "Content-Range": `bytes */${gzipLength}` });
      }
      if (range !== null) {
        const length = range.end - range.start + 1;
        headers.set("Content-Range", `bytes ${range.start}-${range.end}/${gzipLength}`);
        headers.set("Content-Length", String(length));
        const ranged = segments.map((s) => ({ compressedBytes: s.compressedBytes, open: (offset: number, count: number) => openSegment(c.env.CONTENT, s.key, { offset, length: count }) }));
        const body = joinedGzipRangeStream(ranged, version.crc32, version.rawBytes, range.start, range.end);
        return new Response(body.pipeThrough(new FixedLengthStream(length)), { status: 206, headers, encodeBody: "manual" });
      }
      headers.set("Content-Length", String(gzipLength));
      return new Response(gzip().pipeThrough(new FixedLengthStream(gzipLength)), { headers, encodeBody: "manual" });
    }
    headers.set("Content-Type", "text/csv; charset=utf-8");
    headers.set("Content-Disposition", contentDisposition(version.fileName, false));
    headers.set("Vary", "Accept-Encoding");
    // A Range on the CSV is always answered in the CSV's own bytes (no Content-Encoding), so a
    // resumed download (curl -C -, a browser) continues the file it began.
    const csvEtag = `"${version.id}.csv"`;
    const gzipEncodedEtag = `"${version.id}.csv.gz"`;
    // Both encodings carry the same immutable CSV, and a range is always cut from its plain
    // bytes: a client that got the gzip-encoded answer resumes with that ETag in If-Range.
    const stored = segments.map((s) => ({ parts: partsOf(s), open: (range: { offset: number; length: number }) => openSegment(c.env.CONTENT, s.key, range) }));
    const csvRange =
      c.req.header("range") !== undefined && ifRangeAllows(c.req.header("if-range"), [csvEtag, gzipEncodedEtag]) ? parseByteRange(c.req.header("range"), version.rawBytes) : null;
    if (csvRange === "unsatisfiable") {
      throw new ApiError("range_not_satisfiable", `The file has ${version.rawBytes} bytes.`, {}, { "Content-Range": `bytes */${version.rawBytes}` });
    }
    if (csvRange !== null) {
      const length = csvRange.end - csvRange.start + 1;
      headers.set("ETag", csvEtag);
      headers.set("Accept-Ranges", "bytes");
      headers.set("Content-Range", `bytes ${csvRange.start}-${csvRange.end}/${version.rawBytes}`);
      headers.set("Content-Length", String(length));
      const body = rawRangeStream(stored, csvRange.start, csvRange.end);
      return new Response(body.pipeThrough(new FixedLengthStream(length)), { status: 206, headers, encodeBody: "manual" });
    }
    if (acceptsGzip(clientAcceptEncoding(c.req.raw))) {
      headers.set("ETag", gzipEncodedEtag);
      headers.set("Content-Encoding", "gzip");
      headers.set("Content-Length", String(gzipLength));
      return new Response(gzip().pipeThrough(new FixedLengthStream(gzipLength)), { headers, encodeBody: "manual" });
    }
    headers.set("ETag", csvEtag);
    headers.set("Accept-Ranges", "bytes");
    headers.set("Content-Length", String(version.rawBytes));
    // One inflate per group of parts, read as the client reads, not the gzip through one inflate
    // that ran ahead of a slow client; the CRC-32 the gzip trailer carried is checked here instead
    // (docs/storage-protocol.md, "What guards the bytes read back").
    const inflated = crc32Checked(rawRangeStream(stored, 0, version.rawBytes - 1), version.crc32, version.rawBytes);
    return new Response(inflated.pipeThrough(new FixedLengthStream(version.rawBytes)), { headers, encodeBody: "manual" });
  });
}
