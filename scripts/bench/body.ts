// Request bodies for the bench as lists of pieces (bytes in memory, or a file on disk) that are
// hashed for Content-Digest first and then streamed, so a 100 MB upload is never copied whole.
import { createHash } from "node:crypto";
import { createReadStream, statSync } from "node:fs";
import { basename } from "node:path";

export type BodyPiece = { kind: "bytes"; bytes: Uint8Array } | { kind: "file"; path: string; size: number };

export interface RequestBody {
  contentType: string;
  pieces: BodyPiece[];
  length: number;
}

const READ_CHUNK = 1 << 20;
const BOUNDARY = "pubset-bench-4f1c2a9e";

export function fileBody(path: string, contentType: string): RequestBody {
  const size = statSync(path).size;
  return { contentType, pieces: [{ kind: "file", path, size }], length: size };
}

function pieceLength(piece: BodyPiece): number {
  return piece.kind === "bytes" ? piece.bytes.length : piece.size;
}

/**
 * multipart/form-data with an optional `collection` part and the `dataset` part (docs/api.md),
 * the CSV given as a file path or as bytes.
 */
export function datasetMultipart(collection: object | null, csv: { path: string } | { bytes: Uint8Array; fileName: string }): RequestBody {
  const encoder = new TextEncoder();
  const pieces: BodyPiece[] = [];
  if (collection !== null) {
    pieces.push({
      kind: "bytes",
      bytes: encoder.encode(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="collection"\r\nContent-Type: application/json\r\n\r\n` +
          `${JSON.stringify(collection)}\r\n`,
      ),
    });
  }
  const fileName = "path" in csv ? basename(csv.path) : csv.fileName;
  pieces.push({
    kind: "bytes",
    bytes: encoder.encode(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="dataset"; filename="${fileName}"\r\n` +
        `Content-Type: ${fileName.endsWith(".gz") ? "application/gzip" : "text/csv"}\r\n\r\n`,
    ),
  });
  pieces.push("path" in csv ? { kind: "file", path: csv.path, size: statSync(csv.path).size } : { kind: "bytes", bytes: csv.bytes });
  pieces.push({ kind: "bytes", bytes: encoder.encode(`\r\n--${BOUNDARY}--\r\n`) });
  return {
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    pieces,
    length: pieces.reduce((sum, piece) => sum + pieceLength(piece), 0),
  };
}

/** multipart/form-data with only a `collection` part: a metadata or schema-only PUT. */
export function collectionMultipart(collection: object): RequestBody {
  const bytes = new TextEncoder().encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="collection"\r\nContent-Type: application/json\r\n\r\n` +
      `${JSON.stringify(collection)}\r\n--${BOUNDARY}--\r\n`,
  );
  return { contentType: `multipart/form-data; boundary=${BOUNDARY}`, pieces: [{ kind: "bytes", bytes }], length: bytes.length };
}

/** The body's bytes in order, files read in 1 MiB chunks. */
export async function* bodyChunks(body: RequestBody): AsyncGenerator<Uint8Array> {
  for (const piece of body.pieces) {
    if (piece.kind === "bytes") {
      yield piece.bytes;
      continue;
    }
    for await (const chunk of createReadStream(piece.path, { highWaterMark: READ_CHUNK })) {
      yield chunk as Buffer;
    }
  }
}

/** RFC 9530 Content-Digest (sha-256) of the whole body, computed by streaming it once. */
export async function contentDigest(body: RequestBody): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of bodyChunks(body)) hash.update(chunk);
  return `sha-256=:${hash.digest("base64")}:`;
}
