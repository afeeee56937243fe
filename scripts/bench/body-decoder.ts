// Hashes a downloaded body as it arrives, first undoing `Content-Encoding: gzip` when the
// response carries it, as a browser or `curl --compressed` would before saving the file.
import { createHash } from "node:crypto";
import { createGunzip, type Gunzip } from "node:zlib";

export class BodyDecoder {
  decodedBytes = 0;
  readonly #hash = createHash("sha256");
  #gunzip: Gunzip | null = null;
  #done: Promise<void> = Promise.resolve();

  /** Call with the response's Content-Encoding before the first `write`. */
  start(contentEncoding: string | undefined): void {
    if (contentEncoding !== "gzip") return;
    const gunzip = createGunzip();
    gunzip.on("data", (chunk: Buffer) => this.#take(chunk));
    this.#done = new Promise<void>((resolve, reject) => {
      gunzip.on("end", resolve);
      gunzip.on("error", reject);
    });
    this.#done.catch(() => {});
    this.#gunzip = gunzip;
  }

  write(chunk: Buffer): void {
    if (this.#gunzip) this.#gunzip.write(chunk);
    else this.#take(chunk);
  }

  /** Waits for the last decoded byte; returns the sha-256 (hex) of the decoded body. */
  async finish(): Promise<string> {
    this.#gunzip?.end();
    await this.#done;
    return this.#hash.digest("hex");
  }

  #take(chunk: Buffer): void {
    this.decodedBytes += chunk.length;
    this.#hash.update(chunk);
  }
}
