// `pubset download` keeps what an interrupted download saved: FILE.part holds the bytes so far and
// FILE.part.json what they are (the path fetched, the format, the ETag), so a rerun asks only for
// the rest (Range + If-Range) and starts over when the server's file is no longer the same.
import { existsSync, readFileSync, statSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";

export interface PartialState {
  source: string;
  format: "gzip" | "csv" | "parquet";
  etag: string;
}

export class PartialDownload {
  readonly part: string;
  readonly meta: string;

  constructor(target: string) {
    this.part = `${target}.part`;
    this.meta = `${target}.part.json`;
  }

  /** Where to resume `source` in `format`: the saved size and ETag, or null to start over. */
  resumable(source: string, format: "gzip" | "csv" | "parquet"): { offset: number; etag: string } | null {
    if (!existsSync(this.part) || !existsSync(this.meta)) return null;
    try {
      const state = JSON.parse(readFileSync(this.meta, "utf8")) as Partial<PartialState>;
      const offset = statSync(this.part).size;
      if (state.source !== source || state.format !== format || typeof state.etag !== "string" || offset === 0) return null;
      return { offset, etag: state.etag };
    } catch {
      return null;
    }
  }

  /** Written before the first byte, so whatever reaches FILE.part can be resumed. */
  async remember(state: PartialState): Promise<void> {
    await writeFile(this.meta, `${JSON.stringify(state)}\n`);
  }

  async forget(): Promise<void> {
    await rm(this.meta, { force: true });
  }

  async discard(): Promise<void> {
    await rm(this.part, { force: true });
    await this.forget();
  }
}
