// The exit codes every operator script uses: 0 ok, 1 usage error, 2 failure.
export const EXIT_USAGE = 1;
export const EXIT_FAILURE = 2;

/** The command line (or the environment it relies on) is wrong; nothing was attempted. */
export class UsageError extends Error {}

/** Prints the error on stderr and returns the exit code it maps to. */
export function reportError(error: unknown, helpHint: string): number {
  if (error instanceof UsageError) {
    process.stderr.write(`error: ${error.message}\n${helpHint}\n`);
    return EXIT_USAGE;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`error: ${message}\n`);
  return EXIT_FAILURE;
}
