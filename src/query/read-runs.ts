// Which R2 range reads fetch a set of byte spans of one object (docs/queries.md#cost). A read
// costs a round trip whatever its size, so two spans are read as one, the gap between them read
// and dropped, whenever the gap is cheaper to read than a second request: READ_COST_BYTES, the
// bytes one round trip is worth. Past PARALLEL_READS reads the rest would wait for a connection
// (a second round trip), so the reads with the smallest gaps are joined until they fit.

/** Bytes `offset` up to `end` (exclusive) of an object. */
export interface Span {
  offset: number;
  end: number;
}

/** One range read: the bytes it covers and the spans it holds. */
export interface ReadRun<T extends Span> {
  offset: number;
  end: number;
  spans: T[];
}

/**
 * What one more range read costs, in bytes read instead. Measured on the local runtime the bench
 * runs (`wrangler dev`, docs/performance.md "Queries"): reads at once are served one after
 * another, about 1.1–1.3 ms each (ten of 6 kB 11–13 ms), and each MB read adds 10–16 ms (one
 * read of 1 kB 2 ms, of 300 kB 6–8 ms, of 1.2 MB 13–20 ms), so a read is worth 70–115 kB. On
 * the platform a read costs more and bytes less; the cap below keeps the reads to one round
 * there. R2 bills a read per request, not per byte.
 */
export const READ_COST_BYTES = 96 * 1024;
/**
 * A Worker keeps at most six connections open at once, R2 reads included (Cloudflare's Workers
 * limits, "Simultaneous open connections"): a seventh read waits for one of them.
 */
export const PARALLEL_READS = 6;
/** Past the cap, gaps up to this are still joined; a wider one costs more than the wait. */
export const MAX_JOIN_GAP = 512 * 1024;

/** The reads covering `spans` (in any order, overlapping or not): fewest bytes plus round trips, at most PARALLEL_READS where gaps allow. */
export function readRuns<T extends Span>(spans: readonly T[], readCost = READ_COST_BYTES, parallel = PARALLEL_READS): ReadRun<T>[] {
  const sorted = [...spans].sort((a, b) => a.offset - b.offset);
  const out: ReadRun<T>[] = [];
  for (const span of sorted) {
    const last = out.at(-1);
    // Joining saves a read and costs the gap's bytes: worth it while the gap is below a read's cost.
    if (last && span.offset - last.end <= readCost) {
      last.end = Math.max(last.end, span.end);
      last.spans.push(span);
    } else out.push({ offset: span.offset, end: span.end, spans: [span] });
  }
  while (out.length > parallel) {
    let best = 0;
    for (let i = 1; i < out.length - 1; i++) if (out[i + 1]!.offset - out[i]!.end < out[best + 1]!.offset - out[best]!.end) best = i;
    const [left, right] = [out[best]!, out[best + 1]!];
    if (right.offset - left.end > MAX_JOIN_GAP) break;
    out.splice(best, 2, { offset: left.offset, end: Math.max(left.end, right.end), spans: [...left.spans, ...right.spans] });
  }
  return out;
}
