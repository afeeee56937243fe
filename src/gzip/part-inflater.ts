// Inflates one part of a parted gzip (src/storage/README.md, "Upload format") with a fresh
// native raw inflater, which proves the part references nothing before it (RFC 1951 §3.2.5:
// a distance reaching before the part fails as "too far back"). The empty final block
// `03 00` is written after the part: the inflater then accepts it only if the part ended on
// a block boundary, byte-aligned, with no final block of its own (it refuses trailing bytes).
// The raw bytes are collected natively through a FixedLengthStream of the declared length, so a
// part that inflates to more (or less) fails without being held, and JS sees one buffer per
// part rather than a promise per 4 KiB (README "Performance").

import { MAX_PART_RAW_BYTES } from "./parted-gzip-header.ts";

const FINAL_EMPTY_BLOCK = Uint8Array.of(0x03, 0x00);

/** Why a part did not inflate on its own to its declared length. */
export class PartInflateError extends Error {}

export class PartInflater {
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #raw: Promise<ArrayBuffer>;

  constructor(rawBytes: number) {
    if (rawBytes > MAX_PART_RAW_BYTES) throw new PartInflateError(`it declares ${rawBytes} raw bytes, over ${MAX_PART_RAW_BYTES}`);
    const inflater = new DecompressionStream("deflate-raw");
    this.#writer = inflater.writable.getWriter() as WritableStreamDefaultWriter<Uint8Array>;
    const exact = new FixedLengthStream(rawBytes);
    this.#raw = new Response(inflater.readable.pipeThrough(exact)).arrayBuffer();
    this.#raw.catch(() => {});
  }

  /** Feeds compressed bytes of the part. */
  async write(bytes: Uint8Array): Promise<void> {
    await this.#settle(this.#writer.write(bytes));
  }

  /** Ends the part; its raw bytes, exactly as many as declared. */
  async end(): Promise<Uint8Array> {
    await this.#settle(
      (async () => {
        await this.#writer.write(FINAL_EMPTY_BLOCK);
        await this.#writer.close();
      })(),
    );
    let raw: ArrayBuffer | null = null;
    await this.#settle(this.#raw.then((buffer) => void (raw = buffer)));
    return new Uint8Array(raw as unknown as ArrayBuffer);
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
