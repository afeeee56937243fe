// Zero-recompression ingest of a parted gzip (docs/storage-protocol.md, "Upload format"): each
// part is inflated on its own (PartInflater) into the same CsvScanner as every upload, and its
// compressed bytes go to R2 as they are. A broken promise of the format turns the object into
// a staged copy for the recompression path (ingest-dataset.ts), never a segment; a trailer
// that any gzip reader would refuse is refused. A chunk of a resumable upload takes the same
// path (`chunk`): it goes on from the earlier chunks' scan and must end at a record end.
import { RecordKernel } from "../../csv/record-kernel.ts";
import { CsvScanner, type CsvCheckpoint, type CsvMode } from "../../csv/scanner.ts";
import type { Limits } from "../../config.ts";
import { ApiError } from "../../model/errors.ts";
import type { PartLengths } from "../../wire/parted-gzip-header.ts";
import { PartInflateError, PartInflater } from "../../wire/part-inflater.ts";
import { Crc32Stream } from "../../wire/crc32-stream.ts";
import type { SegmentPart } from "../../wire/parted-segment.ts";
import { GZIP_HEADER } from "../../wire/gzip-join.ts";
import { openSegment, SegmentUpload } from "../../storage/segment-store.ts";
import { sequenceStream } from "../../wire/stream-sequence.ts";
import { ColumnTyper, type TypingCheckpoint, type TypingPlan } from "../../schema/column-typer.ts";
import { textSchema } from "../../schema/table-schema.ts";
import { checkHeader, type IngestedChunk, type IngestedSegment } from "./ingest.ts";
import { concatBytes } from "../../wire/deflate-segment.ts";

/** `stored`: the segment is the client's bytes. `recompress`: why not; the object at `key` holds everything after the gzip header. */
export type PartedOutcome = { stored: IngestedSegment | IngestedChunk } | { recompress: string };

/** The staged copy at `key` of a parted gzip that broke the format's promises, as the gzip it was sent as: the recompression path's input. */
export function stagedGzip(bucket: R2Bucket, key: string, reason: string): ReadableStream<Uint8Array> {
  console.log(JSON.stringify({ event: "parted_gzip_recompressed", reason }));
  return sequenceStream([GZIP_HEADER, () => openSegment(bucket, key)]);
}

export interface PartedOptions {
  mode: CsvMode;
  typing: TypingPlan | null;
  limits: Limits;
  bucket: R2Bucket;
  key: string;
  /**
   * A chunk of a resumable upload: the scan goes on from `resume` (null for the first chunk),
   * `rawRoom` bounds its raw bytes (`tooLarge` when past), and unless `final` its last part must
   * end at a record end too, so the next chunk starts on one and nothing is carried.
   */
  chunk?: { resume: { scan: CsvCheckpoint; typing: TypingCheckpoint | null } | null; final: boolean; rawRoom: number; tooLarge: () => ApiError };
}

/** A promise of the format that the bytes break: not an error of the CSV. */
class NotParted extends Error {}

/**
 * What the recompression path would refuse too, for the same bytes (its inflater checks the
 * trailer and refuses a truncated member or bytes after it): refused here at once.
 */
function notGzip(why: string): ApiError {
  return new ApiError("invalid_request", `The \`dataset\` part is not valid gzip: ${why}.`);
}

const TRAILER_BYTES = 10; // `03 00`, CRC-32, ISIZE
const SYNC_FLUSH = [0x00, 0x00, 0xff, 0xff];
/** Compressed bytes written to a part's inflater at a time: a write costs a promise round trip. */
const INFLATE_WRITE = 256 * 1024;
/** Raw bytes handed to the scanner at a time. */
const SCAN_SLICE = 256 * 1024;

export async function ingestPartedGzip(
  first: Uint8Array,
  rest: ReadableStreamDefaultReader<Uint8Array>,
  index: readonly PartLengths[],
  options: PartedOptions,
): Promise<PartedOutcome> {
  const ingest = new PartedIngest(index, options);
  try {
    await ingest.consume(first);
    for (;;) {
      const { done, value } = await rest.read();
      if (done) break;
      await ingest.consume(value);
    }
    return await ingest.finish();
  } catch (error: unknown) {
    await rest.cancel(error).catch(() => {});
    await ingest.abort();
    throw error;
  }
}

class PartedIngest {
  readonly #index: readonly PartLengths[];
  readonly #scanner: CsvScanner;
  readonly #typer: ColumnTyper | null;
  readonly #upload: SegmentUpload;
  readonly #partsEnd: number;
  readonly #trailer = new Uint8Array(TRAILER_BYTES);
  #failure: string | null = null;
  #pos = 0; // compressed bytes after the gzip header consumed
  #part = -1;
  #partStart = 0;
  #inflater: PartInflater | null = null;
  /** Compressed bytes of the current part not yet written to its inflater (request bodies come in KiB-sized chunks). */
  #held: Uint8Array[] = [];
  #heldBytes = 0;
  #last4: number[] = [];
  #rawIn = 0;
  #partRawStart = 0;
  #emitted = 0;
  readonly #crc = new Crc32Stream();
  #headerChecked: boolean;
  readonly #rowsAtStart: number;
  #rowsBefore: number;
  readonly #parts: SegmentPart[] = [];
  readonly #final: boolean;
  readonly #rawRoom: number;
  readonly #tooLarge: () => ApiError;

  constructor(index: readonly PartLengths[], options: PartedOptions) {
    this.#index = index;
    const { maxColumns, maxFieldBytes, maxHeaderBytes, maxContentBytes } = options.limits;
    const resume = options.chunk?.resume ?? null;
    // The same scanner and column typer as every other upload (ingest.ts).
    this.#typer = options.typing === null ? null : new ColumnTyper(options.typing);
    if (this.#typer && resume) this.#typer.resume(resume.scan, resume.typing);
    const kernel = new RecordKernel(this.#typer, maxFieldBytes);
    this.#scanner = new CsvScanner(options.mode, { maxColumns, maxFieldBytes, maxHeaderBytes }, this.#typer, resume?.scan, kernel);
    this.#upload = new SegmentUpload(options.bucket, options.key);
    this.#partsEnd = index.reduce((sum, p) => sum + p.compressedBytes, 0);
    this.#headerChecked = options.mode.kind !== "table" || resume !== null;
    this.#rowsAtStart = this.#scanner.rowsAtRecordEnd;
    this.#rowsBefore = this.#rowsAtStart;
    this.#final = options.chunk?.final ?? true;
    this.#rawRoom = options.chunk?.rawRoom ?? maxContentBytes;
    this.#tooLarge =
      options.chunk?.tooLarge ??
      (() => new ApiError("payload_too_large", `Dataset content is limited to ${maxContentBytes} bytes uncompressed.`, { limit: maxContentBytes }));
  }

  async consume(chunk: Uint8Array): Promise<void> {
    if (this.#part < 0) await this.#nextPart();
    let at = 0;
    while (at < chunk.length) {
      if (this.#failure !== null) return this.#upload.write(chunk.subarray(at));
      if (this.#pos < this.#partsEnd) {
        const take = Math.min(chunk.length - at, this.#partStart + (this.#index[this.#part]?.compressedBytes ?? 0) - this.#pos);
        const slice = chunk.subarray(at, at + take);
        await this.#upload.write(slice);
        at += take;
        this.#pos += take;
        this.#last4 = [...this.#last4, ...slice.subarray(Math.max(0, slice.length - 4))].slice(-4);
        this.#held.push(slice);
        this.#heldBytes += slice.length;
        if (this.#heldBytes >= INFLATE_WRITE) await this.#feed();
        await this.#nextPart();
      } else if (this.#pos < this.#partsEnd + TRAILER_BYTES) {
        const take = Math.min(chunk.length - at, this.#partsEnd + TRAILER_BYTES - this.#pos);
        this.#trailer.set(chunk.subarray(at, at + take), this.#pos - this.#partsEnd);
        at += take;
        this.#pos += take;
      } else {
        throw notGzip("bytes follow the gzip trailer");
      }
    }
  }

  async finish(): Promise<PartedOutcome> {
    if (this.#failure === null && this.#pos < this.#partsEnd + TRAILER_BYTES) throw notGzip("it ends before its trailer");
    if (this.#failure === null) await this.#guard(() => this.#checkEnd());
    if (this.#failure !== null) {
      await this.#upload.finish();
      return { recompress: this.#failure };
    }
    const scanned = this.#scanner.stats;
    const rows = this.#final ? scanned.rows : this.#scanner.rowsAtRecordEnd;
    const last = this.#parts[this.#parts.length - 1];
    if (last && this.#final) last.rowCount = rows - this.#rowsBefore;
    await this.#upload.finish();
    const stored: IngestedSegment = {
      segment: { key: this.#upload.key, compressedBytes: this.#partsEnd, rawBytes: this.#rawIn, rowCount: rows - this.#rowsAtStart, parts: this.#parts },
      crc: await this.#crc.value(),
      // A chunk that is not the last ends at a record end: its stats as ingestChunk states them.
      stats: this.#final ? scanned : { ...scanned, rows, bytes: this.#rawIn, endsWithNewline: true },
      schema: this.#typer?.schema() ?? textSchema(scanned.header ?? []),
      declared: this.#typer?.declaration() ?? null,
    };
    if (this.#final) return { stored };
    return { stored: { ...stored, checkpoint: this.#scanner.checkpoint, typing: this.#typer?.checkpoint() ?? null, carry: new Uint8Array(0) } };
  }

  async abort(): Promise<void> {
    this.#inflater?.abort();
    this.#crc.abort();
    await this.#upload.abort();
  }

  /** The trailer, then the CSV's end: what the scanner passed on must be every byte, unchanged. */
  async #checkEnd(): Promise<void> {
    const view = new DataView(this.#trailer.buffer);
    if (this.#trailer[0] !== 0x03 || this.#trailer[1] !== 0x00) throw new NotParted("the stream does not end with the empty final block 03 00");
    if (view.getUint32(2, true) !== (await this.#crc.value())) throw notGzip("its CRC-32 does not match the content");
    if (view.getUint32(6, true) !== this.#rawIn % 2 ** 32) throw notGzip("its ISIZE does not match the content");
    // A chunk before the last stops at its record end, which #endPart checked: the scan goes on.
    if (!this.#final) return;
    this.#emitted += this.#scanner.finish().length;
    if (!this.#headerChecked) checkHeader(this.#scanner.stats.header);
    if (this.#emitted !== this.#rawIn) throw new NotParted("the CSV scanner drops some of its bytes (a BOM, or blank lines at the end)");
  }

  /** Closes every part whose bytes have all arrived and opens the next one. */
  async #nextPart(): Promise<void> {
    while (this.#failure === null && this.#part < this.#index.length) {
      if (this.#part >= 0) {
        const declared = this.#index[this.#part] as PartLengths;
        if (this.#pos < this.#partStart + declared.compressedBytes) return;
        await this.#guard(() => this.#endPart(declared));
        if (this.#failure !== null) return;
        this.#partStart += declared.compressedBytes;
      }
      this.#part += 1;
      this.#last4 = [];
      this.#partRawStart = this.#rawIn;
      const declared = this.#index[this.#part];
      this.#inflater = null;
      if (declared) await this.#guard(() => void (this.#inflater = new PartInflater(declared.rawBytes)));
    }
  }

  /** Writes the held compressed bytes to the part's inflater as one buffer. */
  async #feed(): Promise<void> {
    const bytes = this.#held.length === 1 ? (this.#held[0] as Uint8Array) : concatBytes(this.#held, this.#heldBytes);
    this.#held = [];
    this.#heldBytes = 0;
    if (bytes.length > 0) await this.#guard(() => this.#inflater?.write(bytes));
  }

  async #endPart(declared: PartLengths): Promise<void> {
    await this.#feed();
    if (this.#failure !== null) return;
    const raw = (await this.#inflater?.end()) ?? new Uint8Array(0);
    for (let at = 0; at < raw.length; at += SCAN_SLICE) this.#onRaw(raw.subarray(at, at + SCAN_SLICE));
    if (this.#last4.join() !== SYNC_FLUSH.join()) throw new NotParted(`part ${this.#part + 1} does not end with a sync flush`);
    const rawBytes = this.#rawIn - this.#partRawStart;
    if (rawBytes !== declared.rawBytes) throw new NotParted(`part ${this.#part + 1} inflates to ${rawBytes} bytes, not ${declared.rawBytes}`);
    const isLast = this.#final && this.#part === this.#index.length - 1;
    if (!isLast && (this.#scanner.recordEnd !== this.#rawIn || this.#emitted !== this.#rawIn)) {
      throw new NotParted(`part ${this.#part + 1} does not end at the end of a record`);
    }
    const rowCount = isLast ? 0 : this.#scanner.rowsAtRecordEnd - this.#rowsBefore;
    this.#rowsBefore += rowCount;
    this.#parts.push({ compressedOffset: this.#partStart, compressedBytes: declared.compressedBytes, rawBytes, rowCount });
  }

  #onRaw(raw: Uint8Array): void {
    this.#rawIn += raw.length;
    if (this.#rawIn > this.#rawRoom) throw this.#tooLarge();
    this.#crc.update(raw);
    this.#emitted += this.#scanner.push(raw).length;
    this.#headerChecked ||= checkHeader(this.#scanner.stats.header);
  }

  /** Runs a step; a broken promise of the format switches to copying, any other error stands. */
  async #guard(step: () => Promise<void> | void): Promise<void> {
    try {
      await step();
    } catch (error: unknown) {
      if (error instanceof NotParted) await this.#fail(error.message);
      else if (error instanceof PartInflateError) await this.#fail(`part ${this.#part + 1} does not inflate on its own: ${error.message}`);
      else throw error;
    }
  }

  /** From here on every byte is only copied: the object becomes the recompression path's input. */
  async #fail(reason: string): Promise<void> {
    this.#failure = reason;
    this.#held = [];
    this.#heldBytes = 0;
    this.#inflater?.abort();
    this.#inflater = null;
    const trailer = Math.max(0, Math.min(this.#pos - this.#partsEnd, TRAILER_BYTES));
    await this.#upload.write(this.#trailer.subarray(0, trailer));
  }
}
