// The state machine of a streamed multipart body (RFC 2046 §5.1.1 syntax, RFC 7578 form-data):
// preamble, delimiter lines with transport padding, header sections, part bodies pulled on
// demand, close delimiter and epilogue. Part bodies are never buffered whole.

import { ByteWindow, type DelimiterFinder } from "./delimiter.ts";
import { MultipartError, parsePartHeaders, type PartHeaders } from "./part-headers.ts";

export interface MultipartPart extends PartHeaders {
  /** The part's bytes; read it to the end or cancel it before asking for the next part. */
  body: ReadableStream<Uint8Array>;
}

type BodyController = ReadableStreamDefaultController<Uint8Array>;

const CRLF = new Uint8Array([13, 10]);
const noop = (): void => {};

/**
 * One parse. `nextPart` and the pulls of part bodies share the source, so every step runs
 * alone (`#exclusive`); the first error, the source's own or a MultipartError, sticks and
 * reaches every later reader unchanged.
 */
export class MultipartParser {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #window: ByteWindow;
  readonly #finder: DelimiterFinder;
  readonly #maxHeaderBytes: number;
  readonly #maxParts: number;
  /** "body": inside the preamble or a part body; "headers": at the CRLF ending a boundary line. */
  #state: "body" | "headers" | "done" = "body";
  /** The body begins with the CRLF that ends its header section, unless a delimiter begins there. */
  #pendingCrlf = false;
  #parts = 0;
  #controller: BodyController | null = null;
  #failure: { error: unknown } | null = null;
  #queue: Promise<void> = Promise.resolve();

  constructor(source: ReadableStream<Uint8Array>, finder: DelimiterFinder, maxHeaderBytes: number, maxParts: number) {
    this.#reader = source.getReader();
    // RFC 2046 §5.1.1: the first boundary line may open the body without a preceding CRLF;
    // starting the preamble with one lets a single delimiter search find it.
    this.#window = new ByteWindow(this.#reader, CRLF);
    this.#finder = finder;
    this.#maxHeaderBytes = maxHeaderBytes;
    this.#maxParts = maxParts;
  }

  /** The next part, or null after the close delimiter and the end of the source. */
  nextPart(): Promise<MultipartPart | null> {
    return this.#exclusive(async () => {
      if (this.#state === "body") {
        const abandoned = this.#controller;
        this.#controller = null;
        abandoned?.error(new MultipartError("cancelled", "the next part was requested before this body was read"));
        for (let stop = await this.#bodySpan(); stop >= 0; stop = await this.#bodySpan()) this.#window.pos = stop;
      }
      if (this.#state === "done") return null;
      const headers = await this.#readHeaders();
      this.#state = "body";
      return { ...headers, body: this.#openBody() };
    });
  }

  /** Ends the parse early: the source is cancelled and an unfinished body errors. */
  async close(): Promise<void> {
    await this.#queue;
    if (this.#state === "done") return;
    this.#fail(new MultipartError("cancelled", "the part iterator was closed"));
  }

  #openBody(): ReadableStream<Uint8Array> {
    let own: BodyController | null = null;
    return new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          own = controller;
          this.#controller = controller;
        },
        pull: (controller) =>
          this.#exclusive(async () => {
            if (this.#controller !== controller) return;
            const stop = await this.#bodySpan();
            if (stop >= 0) {
              controller.enqueue(this.#window.take(stop));
            } else {
              this.#controller = null;
              controller.close();
            }
          }),
        cancel: () => {
          if (this.#controller === own) this.#controller = null;
        },
      },
      { highWaterMark: 0 },
    );
  }

  /**
   * Finds the next run of body bytes: they are `window.buf[window.pos, returned)`. Returns -1
   * at the end of the body, once the boundary line after it has been read (RFC 2046 §5.1.1:
   * the CRLF before a boundary belongs to the boundary, not to the body).
   */
  async #bodySpan(): Promise<number> {
    const w = this.#window;
    const finder = this.#finder;
    for (;;) {
      const found = finder.find(w.buf, w.pos, w.end);
      const stop = found >= 0 ? found : finder.partialStart(w.buf, w.pos, w.end);
      if (stop > w.pos) {
        if (this.#pendingCrlf) {
          this.#pendingCrlf = false;
          w.pos += 2;
        }
        if (stop > w.pos) return stop;
      }
      if (found >= 0) {
        this.#pendingCrlf = false;
        await this.#readBoundaryLine();
        return -1;
      }
      if (!(await w.fill())) {
        throw this.#parts === 0
          ? new MultipartError("missing_boundary", "the body has no boundary line")
          : new MultipartError("unexpected_end", "the body ended inside a part");
      }
    }
  }

  /**
   * At a delimiter: reads `--` (close delimiter: the epilogue is read to the end of the source
   * and discarded, so errors the source raises at its end still surface) or transport padding
   * and CRLF.
   */
  async #readBoundaryLine(): Promise<void> {
    const w = this.#window;
    await this.#require(this.#finder.length + 2);
    w.pos += this.#finder.length;
    if (w.buf[w.pos] === 45 && w.buf[w.pos + 1] === 45) {
      this.#state = "done";
      w.clear();
      while (await w.fill()) w.clear();
      return;
    }
    for (let padding = 0; ; padding++) {
      await this.#require(1);
      const c = w.buf[w.pos];
      if (c !== 32 && c !== 9) break;
      if (padding >= this.#maxHeaderBytes) {
        throw new MultipartError("headers_too_long", "too much padding after a boundary");
      }
      w.pos++;
    }
    await this.#require(2);
    if (w.buf[w.pos] !== 13 || w.buf[w.pos + 1] !== 10) {
      throw new MultipartError("garbled_boundary", "a boundary is followed by something other than CRLF or --");
    }
    this.#state = "headers";
  }

  /** At the CRLF ending a boundary line: reads the header section up to its blank line. */
  async #readHeaders(): Promise<PartHeaders> {
    if (++this.#parts > this.#maxParts) {
      throw new MultipartError("too_many_parts", `more than ${this.#maxParts} parts`);
    }
    const w = this.#window;
    const max = this.#maxHeaderBytes;
    let scanned = 0;
    for (;;) {
      const end = findBlankLine(w.buf, w.pos + scanned, w.end);
      // The section runs from after the boundary line's CRLF to the end of the blank line.
      if (end >= 0 ? end + 2 - w.pos > max : w.available - 2 >= max) {
        throw new MultipartError("headers_too_long", `a part's header section is over ${max} bytes`);
      }
      if (end >= 0) {
        const headers = parsePartHeaders(w.buf.subarray(w.pos + 2, end));
        w.pos = end + 2;
        this.#pendingCrlf = true;
        return headers;
      }
      scanned = Math.max(0, w.available - 3);
      if (!(await w.fill())) throw new MultipartError("unexpected_end", "the body ended inside a part's headers");
    }
  }

  async #require(bytes: number): Promise<void> {
    while (this.#window.available < bytes) {
      if (!(await this.#window.fill())) {
        throw new MultipartError("unexpected_end", "the body ended inside a boundary line");
      }
    }
  }

  #exclusive<T>(step: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(async () => {
      if (this.#failure) throw this.#failure.error;
      try {
        return await step();
      } catch (error: unknown) {
        this.#fail(error);
        throw error;
      }
    });
    this.#queue = run.then(noop, noop);
    return run;
  }

  #fail(error: unknown): void {
    if (this.#failure) return;
    this.#failure = { error };
    this.#state = "done";
    const controller = this.#controller;
    this.#controller = null;
    controller?.error(error);
    this.#window.clear();
    this.#reader.cancel(error).catch(noop);
  }
}

/** Index of the first CRLF CRLF in `buf[from, to)`, or -1. */
function findBlankLine(buf: Uint8Array, from: number, to: number): number {
  for (let i = from; i + 3 < to; i++) {
    i = buf.indexOf(13, i);
    if (i < 0 || i + 3 >= to) return -1;
    if (buf[i + 1] === 10 && buf[i + 2] === 13 && buf[i + 3] === 10) return i;
  }
  return -1;
}
