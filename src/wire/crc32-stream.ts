// CRC-32 (RFC 1952 §8) of bytes handed over one buffer at a time, computed natively where the
// runtime's DigestStream knows "crc32" (workerd does: ~40× the speed of the table-driven JS in
// crc32.ts, which is the fallback), so the check of an upload's gzip trailer costs almost nothing.
import { crc32Update } from "./crc32.ts";

/** The native digest stream, or null where the runtime has no CRC-32 digest. */
function nativeCrc32(): DigestStream | null {
  try {
    return new crypto.DigestStream("crc32");
  } catch {
    return null;
  }
}

/**
 * `update` takes buffers in order (they must not change afterwards: the native digest reads
 * them a little later); `value()` ends the stream (later calls give the same) and gives the CRC of all of them, unsigned.
 */
export class Crc32Stream {
  readonly #native: DigestStream | null = nativeCrc32();
  readonly #writer: WritableStreamDefaultWriter<Uint8Array> | null;
  #crc = 0;
  #value: Promise<number> | null = null;

  constructor() {
    this.#writer = this.#native?.getWriter() ?? null;
    // An aborted stream rejects its digest, which nobody then reads.
    this.#native?.digest.catch(() => {});
  }

  update(bytes: Uint8Array): void {
    const writer = this.#writer;
    if (writer === null) {
      this.#crc = crc32Update(this.#crc, bytes);
      return;
    }
    // A failed write errors the stream, so `value()`'s close rejects with it.
    if (bytes.length > 0) writer.write(bytes).catch(() => {});
  }

  value(): Promise<number> {
    this.#value ??= this.#end();
    return this.#value;
  }

  async #end(): Promise<number> {
    if (this.#writer === null || this.#native === null) return this.#crc;
    await this.#writer.close();
    // The digest is the CRC as four bytes, most significant first.
    return new DataView(await this.#native.digest).getUint32(0, false);
  }

  /** Frees the native stream of a CRC that will not be read. */
  abort(): void {
    this.#writer?.abort().catch(() => {});
  }
}

/**
 * `stream`, which must carry exactly `length` bytes whose CRC-32 is `crc`, as a pull stream
 * that hands on its chunks as they come but holds the one that completes `length` until the CRC
 * of all of them is known: when the CRC or the length differs, the stream errors instead of
 * ending, so a reader never receives the whole length of wrong bytes (docs/storage-protocol.md,
 * "What guards the bytes read back"). Chunks must not change once read (the digest reads them later).
 */
export function crc32Checked(stream: ReadableStream<Uint8Array>, crc: number, length: number): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  const digest = new Crc32Stream();
  let seen = 0;
  const fail = async (message: string): Promise<never> => {
    digest.abort();
    await reader.cancel(message).catch(() => {});
    throw new Error(message);
  };
  const check = async (): Promise<void> => {
    const actual = await digest.value();
    if (actual !== crc >>> 0) await fail(`content CRC-32 is ${actual.toString(16)}, not ${(crc >>> 0).toString(16)}`);
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) {
            if (seen !== length) await fail(`content ended after ${seen} of ${length} bytes`);
            await check();
            return controller.close();
          }
          if (value.length === 0) continue;
          seen += value.length;
          if (seen > length) await fail(`content runs past its ${length} bytes`);
          digest.update(value);
          if (seen === length) await check();
          return controller.enqueue(value);
        }
      },
      async cancel(reason: unknown) {
        digest.abort();
        await reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
