// Upload and download progress on stderr — bytes, rate, ETA — redrawn in place on a TTY and
// silent otherwise, so pipes and logs stay clean. A write is one line from the first byte read
// to the server's answer: compress, upload, then "processing" while the server commits.
import type { Progress, ProgressCallback } from "../client/index.ts";
import { formatBytes } from "./output.ts";

const LABELS = { prepare: "compress", upload: "upload", processing: "process", download: "download" } as const;
const REDRAW_MS = 100;

export interface ProgressTarget {
  isTTY?: boolean;
  columns?: number;
  write(text: string): boolean;
}

function clock(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "--:--";
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${rest}` : `${m}:${rest}`;
}

/** `resuming upload at 62.0 MiB of 287.8 MiB (21 %)`: what a rerun found the server holding. */
export function resumeLine(resumedFrom: number, total: number | undefined): string {
  if (total === undefined || total === 0) return `resuming upload at ${formatBytes(resumedFrom)}`;
  return `resuming upload at ${formatBytes(resumedFrom)} of ${formatBytes(total)} (${Math.floor((resumedFrom / total) * 100)} %)`;
}

export function progressLine(progress: Progress, elapsedMs: number, width: number): string {
  if (progress.phase === "processing") {
    // Every byte is sent; the server validates and commits. Elapsed time shows it is alive.
    const label = LABELS.processing.padEnd(8);
    const tail = `${formatBytes(progress.loaded)} sent, server committing  ${clock(elapsedMs / 1000)}`;
    const barWidth = Math.max(10, Math.min(40, width - label.length - tail.length - 10));
    return `${label} [${"#".repeat(barWidth)}] 100%  ${tail}`;
  }
  // A resumed upload's rate and ETA count only what this run sent.
  const rate = elapsedMs > 0 ? ((progress.loaded - (progress.phase === "upload" ? (progress.resumedFrom ?? 0) : 0)) * 1000) / elapsedMs : 0;
  const label = LABELS[progress.phase].padEnd(8);
  const rateText = `${formatBytes(Math.round(rate))}/s`;
  if (progress.total === undefined || progress.total === 0) return `${label} ${formatBytes(progress.loaded)}  ${rateText}`;
  const fraction = Math.min(1, progress.loaded / progress.total);
  const eta = rate > 0 ? (progress.total - progress.loaded) / rate : Number.NaN;
  const tail = `${formatBytes(progress.loaded)} / ${formatBytes(progress.total)}  ${rateText}  ETA ${clock(eta)}`;
  const barWidth = Math.max(10, Math.min(40, width - label.length - tail.length - 10));
  const filled = Math.round(fraction * barWidth);
  const percent = `${Math.floor(fraction * 100)}%`.padStart(4);
  return `${label} [${"#".repeat(filled)}${" ".repeat(barWidth - filled)}] ${percent}  ${tail}`;
}

export interface ProgressBar {
  onProgress: ProgressCallback;
  /** Ends the bar's line, then writes `line` on a line of its own. */
  note(line: string): void;
  done(): void;
}

/**
 * A progress callback drawing on `target`, or undefined when `target` is not a terminal. Once
 * `signal` aborts (Ctrl-C, whose message interrupt.ts writes) it draws nothing more, so no stale
 * bar ever lands below that message.
 */
export function progressBar(target: ProgressTarget, signal?: AbortSignal, now: () => number = Date.now): ProgressBar | undefined {
  if (target.isTTY !== true) return undefined;
  let phase: Progress["phase"] | null = null;
  let started = 0;
  let ticker: ReturnType<typeof setInterval> | null = null;
  let drawnAt = 0;
  let undrawn: Progress | null = null;
  const draw = (progress: Progress) => {
    if (signal?.aborted) return;
    target.write(`\r\x1b[2K${progressLine(progress, now() - started, target.columns ?? 80)}`);
    drawnAt = now();
    undrawn = null;
  };
  // Ends the current line, first drawing the latest state if it was throttled away.
  let latest: Progress | null = null;
  const endLine = () => {
    if (phase === null || signal?.aborted) return;
    if (undrawn) draw(undrawn);
    else if (phase === "processing" && latest) draw(latest); // the final elapsed time
    target.write("\n");
  };
  return {
    onProgress(progress) {
      if (progress.phase !== phase) {
        // The phases of one write share a line; a download is a transfer of its own.
        if (phase === "download" || progress.phase === "download") endLine();
        phase = progress.phase;
        started = now();
        if (ticker) clearInterval(ticker);
        ticker = null;
        if (phase === "processing") {
          const last = progress;
          ticker = setInterval(() => draw(last), 1000);
          ticker.unref?.();
        }
      }
      undrawn = progress;
      latest = progress;
      const finished = progress.total !== undefined && progress.loaded >= progress.total;
      if (finished || now() - drawnAt >= REDRAW_MS) draw(progress);
    },
    note(line) {
      endLine();
      phase = null;
      drawnAt = Number.NEGATIVE_INFINITY;
      if (!signal?.aborted) target.write(`${line}\n`);
    },
    done() {
      if (ticker) clearInterval(ticker);
      ticker = null;
      endLine();
      phase = null;
    },
  };
}
