// Small helpers shared by the bench's measurements and its reports: units, medians, the machine line.
import { cpus, loadavg, totalmem } from "node:os";

export const MB = 1_000_000;
export const MIB = 1024 * 1024;

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Decimal megabytes per second, one decimal. */
export function mbPerSecond(bytes: number, seconds: number): string {
  return (bytes / MB / seconds).toFixed(1);
}

export function mib(bytes: number): string {
  return `${(bytes / MIB).toFixed(1)} MiB`;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** One line naming the machine and its load, for the reports of the bench parts. */
export function machineLine(): string {
  const cpu = cpus();
  return `${cpu.length} cores (${cpu[0]?.model.trim() ?? "unknown CPU"}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, load average ${loadavg().map((l) => l.toFixed(1)).join(" / ")} at the end`;
}

/** Runs a bench part's `main` and exits with its code; an error is printed under `name`. */
export function runBenchPart(name: string, main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${name}: ${errorText(error)}\n`);
      process.exit(1);
    },
  );
}
