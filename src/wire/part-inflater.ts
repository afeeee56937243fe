// Inflates one part of a parted gzip (docs/storage-protocol.md, "Upload format") with a fresh
// native raw inflater, which proves the part references nothing before it (RFC 1951 §3.2.5:
// a distance reaching before the part fails as "too far back"). After the part come a stored
// block of 16 random bytes and the empty final block `03 00` (§3.2.4, §3.2.3): the random
// bytes come out last only if the part ended on a block boundary, byte-aligned, with no final
// block of its own, so it reads the same followed by anything else (the next part, or `03 00`
// in the `.gz`). A part crafted to leave a block open would have to turn bytes it cannot know
// into themselves. The raw bytes are collected natively through a FixedLengthStream, so a part
// that inflates to more (or less) than declared fails without being held, and JS sees one
// buffer per part rather than a promise per 4 KiB (docs/performance.md).
import { MAX_PART_RAW_BYTES } from "./parted-gzip-header.ts";

const PROBE_BYTES = 16;
const FINAL_EMPTY_BLOCK = [0x03, 0x00];

/** Why a part did not inflate on its own to its declared length, ending on a block boundary. */
export class PartInflateError extends Error {}

export class PartInflater {
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #raw: Promise<ArrayBuffer>;
  readonly #rawBytes: number;
  readonly #probe = crypto.getRandomValues(new Uint8Array(PROBE_BYTES));

  constructor(rawBytes: number) {
    if (rawBytes > MAX_PART_RAW_BYTES) throw new PartInflateError(`it declares ${rawBytes} raw bytes, over ${MAX_PART_RAW_BYTES}`);
    this.#rawBytes = rawBytes;
    const inflater = new DecompressionStream("deflate-raw");
    this.#writer = inflater.writable.getWriter() as WritableStreamDefaultWriter<Uint8Array>;
    const exact = new FixedLengthStream(rawBytes + PROBE_BYTES);
    this.#raw = new Response(inflater.readable.pipeThrough(exact)).arrayBuffer();
    this.#raw.catch(() => {});
  }

  /** Feeds compressed bytes of the part. */
  async write(bytes: Uint8Array): Promise<void> {
    await this.#settle(this.#writer.write(bytes));
  }

  /** Ends the part; its raw bytes, exactly as many as declared. */
  async end(): Promise<Uint8Array> {
    // A non-final stored block (BFINAL 0, BTYPE 00, padding; LEN, NLEN) holding the probe.
    const tail = Uint8Array.from([0x00, PROBE_BYTES, 0x00, ~PROBE_BYTES & 0xff, 0xff, ...this.#probe, ...FINAL_EMPTY_BLOCK]);
    await this.#settle(
      (async () => {
        await this.#writer.write(tail);
        await this.#writer.close();
      })(),
    );
    let raw = new Uint8Array(0);
    await this.#settle(this.#raw.then((buffer) => void (raw = new Uint8Array(buffer))));
    const probe = raw.subarray(this.#rawBytes);
    if (!probe.every((byte, i) => byte === this.#probe[i])) throw new PartInflateError("it does not end on a block boundary");
    return raw.subarray(0, this.#rawBytes);
  }

  /** Frees the inflater of a part that will not be finished. */
  abort(): void {
    this.#writer.abort().catch(() => {});
  }

  async #settle(work: Promise<void>): Promise<void> {
    try {
      await work;
    } catch (error: unknown) {
      throw new PartInflateError(error instanceof Error ? error.message : String(error));
    }
  }
}
