// The sizes that set what the column statistics keep exact and how large a stored summary may
// grow (docs/statistics.md). One place, so the bounds the docs promise are read off here.

/**
 * Distinct values kept exactly with their counts (a hash table of 64-bit keys, a sorted run for
 * numbers), so the median and histogram are exact too; past it, HyperLogLog, and KLL for numbers.
 * Categorical columns stay well inside it; a column of mostly distinct values costs less sketched
 * than counted exactly, whose tables then outgrow the cache (docs/statistics.md, "Cost").
 * Summaries stored when it was 100,000 still read and merge.
 */
export const EXACT_VALUES_LIMIT = 16_384;

/**
 * Distinct values counted exactly, as the statistics document promises (docs/statistics.md):
 * past EXACT_VALUES_LIMIT by their keys alone (distinct-keys.ts), beside the sketches; past this,
 * HyperLogLog's estimate.
 */
export const EXACT_DISTINCT_LIMIT = 100_000;

/** HyperLogLog precision: 2^16 one-byte registers, standard error 1.04 / 256 ≈ 0.41 %. */
export const HLL_PRECISION = 16;

/**
 * Counters a string column's frequent values keep after a purge (Misra–Gries): each kept count
 * is at most n / this below the true count.
 */
export const FREQUENT_CAPACITY = 1024;

/**
 * Counters held before a purge: counts are exact while the column has at most this many
 * distinct values, and purges (each a linear pass) come once per ~3,000 new values.
 */
export const FREQUENT_PURGE_AT = 4 * FREQUENT_CAPACITY;

/**
 * UTF-16 code units of text the frequent values keep before a purge comes early (at least
 * FREQUENT_CAPACITY counters): twice what a purge's survivors can hold (1,024 texts of at most
 * 257 units), so a column of long texts keeps at most 1 MiB of them (512 KiB of Latin-1).
 */
export const FREQUENT_TEXT_UNITS = 512 * 1024;

/** The most frequent values a string column lists. */
export const TOP_VALUES = 10;

/** Longest frequent-value text kept, in UTF-16 code units; a longer one is cut and ends in `…`. */
export const TOP_VALUE_MAX_LENGTH = 256;

/** KLL's k: rank error about 0.2 % of the rows (99 % confidence), far inside the 0.5 % promised. */
export const KLL_K = 2048;

/** Equal-width bins of a histogram. */
export const HISTOGRAM_BINS = 10;
