// Small numeric helpers shared by the bench's measurements and its report.

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
