// Feeds a scanner its input cut at given offsets and records what it shows after every chunk,
// up to its end or its first error: the loop the scanner-comparison tests share.

interface ChunkScanner {
  push(chunk: Uint8Array): Uint8Array;
  finish(): Uint8Array;
}

/**
 * `step(out)` after every push and after `finish()`, then `end()`; a thrown error ends the
 * scan and comes back as plain data (its own fields, name and message) so results compare.
 */
export function scanInChunks(scanner: ChunkScanner, bytes: Uint8Array, cuts: number[], step: (out: Uint8Array) => unknown, end: () => unknown): { steps: unknown[]; error: unknown } {
  const steps: unknown[] = [];
  let error: unknown = null;
  try {
    let from = 0;
    for (const cut of [...cuts, bytes.length]) {
      steps.push(step(scanner.push(bytes.slice(from, cut))));
      from = cut;
    }
    steps.push(step(scanner.finish()));
    steps.push(end());
  } catch (e: unknown) {
    error = e instanceof Error ? { ...e, name: e.name, message: e.message } : e;
  }
  return { steps, error };
}
