// Which trailing run of a version's segments to merge next (docs/storage-protocol.md): size-tiered, the shape of
// an LSM size-tiered merge or of Delta Lake's OPTIMIZE. Pure: sizes in, a run out.
//
// A segment's tier is floor(log_fanIn(compressed bytes)). The run considered at tier t is the
// longest tail of segments whose tiers are all ≤ t. It is merged once it holds `fanIn` segments
// of tier t or t − 1, so a merge makes something about `fanIn` times larger than what it copies,
// and each byte is copied about log_fanIn(appended bytes / append size) times over its life.
// Smaller segments in that tail ride along (they are cheap); a big segment is never copied to
// absorb a few small ones after it, because they do not count toward its tier.
import type { MergePolicy } from "../config.ts";

/** Segments `[start, end)` of the list, merged into one; `end` is always the list's length. */
export interface MergeRun {
  start: number;
  end: number;
}

export const DEFAULT_MERGE_POLICY: MergePolicy = { fanIn: 5, maxSegments: 16, maxMergedBytes: 1024 * 1024 * 1024 };

function tierOf(bytes: number, fanIn: number): number {
  return Math.floor(Math.log(Math.max(bytes, 1)) / Math.log(fanIn));
}

/** The next merge for a list of compressed segment sizes, or null when it is in shape. */
export function planMerge(sizes: readonly number[], policy: MergePolicy = DEFAULT_MERGE_POLICY): MergeRun | null {
  const n = sizes.length;
  let floor = 0; // runs start after the last segment at the size cap
  for (let i = n - 1; i >= 0; i--) {
    if ((sizes[i] ?? 0) >= policy.maxMergedBytes) {
      floor = i + 1;
      break;
    }
  }
  if (n - floor < 2) return null;
  const tiers = sizes.map((bytes) => tierOf(bytes, policy.fanIn));
  const candidateTiers = [...new Set(tiers.slice(floor))].sort((a, b) => a - b);
  const tailAtOrBelow = (tier: number) => {
    let start = n;
    let bytes = 0;
    while (start > floor && (tiers[start - 1] ?? Infinity) <= tier) {
      start--;
      bytes += sizes[start] ?? 0;
    }
    return { start, bytes };
  };
  for (const tier of candidateTiers) {
    const { start, bytes } = tailAtOrBelow(tier);
    let full = 0;
    for (let i = start; i < n; i++) if ((tiers[i] ?? 0) >= tier - 1) full++;
    if (full >= policy.fanIn && bytes <= policy.maxMergedBytes) return { start, end: n };
  }
  if (n > policy.maxSegments) {
    for (const tier of candidateTiers) {
      const { start, bytes } = tailAtOrBelow(tier);
      if (n - start >= 2 && bytes <= policy.maxMergedBytes) return { start, end: n };
    }
  }
  return null;
}
