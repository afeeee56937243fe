// wrangler dev's log as evidence: when a request dies without an answer (the server reset the
// upload after answering early, or the worker crashed), what wrangler logged meanwhile is the
// exact error, e.g. `POST /v1/dataset 413 Payload Too Large` or a runtime error.
import { readFileSync, statSync } from "node:fs";

const MAX_LINES = 6;

export class ServerLog {
  readonly #path: string;

  constructor(path: string) {
    this.#path = path;
  }

  /** The log's current length, to read what comes after it. */
  mark(): number {
    try {
      return statSync(this.#path).size;
    } catch {
      return 0;
    }
  }

  /** The last few non-empty lines logged since `mark`, joined with " / ". */
  since(mark: number): string {
    let text: string;
    try {
      text = readFileSync(this.#path).subarray(mark).toString("utf8");
    } catch {
      return "";
    }
    const lines = text.split("\n").map((line) => line.replace(/\u001b\[[0-9;]*m/g, "").trim()).filter((line) => line !== "");
    return lines.slice(-MAX_LINES).join(" / ");
  }
}

/** Runs `request`; if it throws, adds what the server logged meanwhile to the error. */
export async function explained<T>(log: ServerLog | undefined, request: () => Promise<T>): Promise<T> {
  const mark = log?.mark() ?? 0;
  try {
    return await request();
  } catch (error: unknown) {
    if (log === undefined) throw error;
    // wrangler logs a request when it ends; give it a moment to reach the file.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const logged = log.since(mark);
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(logged === "" ? message : `${message}; wrangler logged: ${logged}`);
  }
}
