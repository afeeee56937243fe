// Ctrl-C (or SIGTERM, SIGHUP) during a command: what is in flight is aborted, temp files go
// (file-spool.ts), and a write says what became of it. The server commits only a whole body
// (its Content-Digest covers every byte), so a write cut off before its last byte changed
// nothing; once every byte was sent, it may have landed, and the user is told how to check.
import type { Progress } from "../client/index.ts";

export const EXIT_INTERRUPTED = 130;

/** The abort reason a signal gives every call of the command. */
export class InterruptedError extends Error {
  override readonly name = "InterruptedError";
}

export interface WriteInFlight {
  /** `pubset versions <id>` for append/update; `pubset ls` for create (no id yet). */
  check: string;
  /** The command line to finish the write safely; absent when a rerun would not send the same
   * request (update merges properties into whatever is current by then). */
  rerun?: string;
}

/** What the command is doing, fed by the write commands' progress callbacks. */
export class WriteTracker {
  private write: WriteInFlight | null = null;
  private phase: Progress["phase"] | null = null;
  private sentAll = false;
  private sentAny = false;
  private resumable = false;

  begin(write: WriteInFlight): void {
    this.write = write;
    this.phase = null;
    this.sentAll = false;
    this.sentAny = false;
    this.resumable = false;
  }

  progress(progress: Progress): void {
    this.phase = progress.phase;
    if (progress.resumable) this.resumable = true;
    // Re-reading the part an earlier run sent: the server holds chunks the finish line goes on from.
    if (progress.resumable && progress.phase === "prepare") this.sentAny = true;
    if (progress.phase !== "upload") return;
    if (progress.loaded > 0) this.sentAny = true;
    if (progress.total !== undefined && progress.loaded >= progress.total) this.sentAll = true;
  }

  end(): void {
    this.write = null;
  }

  /** What to tell the user when interrupted now. */
  message(): string {
    const write = this.write;
    if (write === null) return "pubset: interrupted";
    if (!this.sentAny) return "pubset: interrupted before the upload was sent; nothing was written.";
    if (!this.sentAll && this.resumable && write.rerun !== undefined) {
      return [
        "pubset: interrupted while sending a resumable upload; nothing is written until its last chunk.",
        "  The chunks the server holds are kept for 24 h; to go on from them:",
        `  finish: ${write.rerun}`,
      ].join("\n");
    }
    if (!this.sentAll) {
      return "pubset: interrupted while sending; the server commits only a complete upload, so nothing was written.";
    }
    const lines = ["pubset: interrupted after the whole upload was sent: the write may have landed.", `  check:  ${write.check}`];
    if (write.rerun !== undefined) {
      lines.push(`  finish: ${write.rerun}`);
      lines.push("          (the same Idempotency-Key: the server replays the answer if it landed, applies it once if not)");
    }
    return lines.join("\n");
  }
}

const SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
const SIGNAL_NUMBERS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/**
 * Until the returned function is called, the first signal aborts `controller` and prints the
 * tracker's message; the command then unwinds (its finally blocks free the spool). A command
 * that does not notice within `graceMs`, or a second signal, ends the process at once.
 */
export function onInterrupt(controller: AbortController, tracker: WriteTracker, stderr: NodeJS.WritableStream, graceMs = 3_000): () => void {
  const handle = (signal: NodeJS.Signals) => {
    const code = 128 + (SIGNAL_NUMBERS[signal] ?? 2);
    if (controller.signal.aborted) process.exit(code);
    stderr.write(`\n${tracker.message()}\n`);
    controller.abort(new InterruptedError(`interrupted by ${signal}`));
    setTimeout(() => process.exit(code), graceMs).unref();
  };
  for (const signal of SIGNALS) process.on(signal, handle);
  return () => {
    for (const signal of SIGNALS) process.off(signal, handle);
  };
}
