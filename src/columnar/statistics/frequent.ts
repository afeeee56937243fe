// A string column's most frequent values: exact counts while it has at most FREQUENT_PURGE_AT
// distinct values, then the Misra–Gries summary (Misra and Gries 1982, "Finding repeated
// elements"; mergeable as in Agarwal et al. 2012, "Mergeable Summaries"). Counters accumulate up
// to FREQUENT_PURGE_AT, or fewer once their texts pass FREQUENT_TEXT_UNITS together; a purge
// subtracts the count that leaves FREQUENT_CAPACITY of them positive. Each kept count is a lower bound, at most `offset` ≤ n / FREQUENT_CAPACITY below the
// truth: a purge subtracting c takes c from at least FREQUENT_CAPACITY counters.
import type { ByteReader, ByteWriter } from "./bytes.ts";
import { KEY } from "./hash.ts";
import { KeyTable } from "./key-table.ts";
import { FREQUENT_CAPACITY, FREQUENT_PURGE_AT, FREQUENT_TEXT_UNITS, TOP_VALUE_MAX_LENGTH } from "./limits.ts";

export interface TopValue {
  value: string;
  count: number;
}

export class FrequentValues {
  /** Key → count, with `tags` holding the index of the key's text in `texts`. */
  private table = new KeyTable(true);
  private texts: string[] = [];
  /** texts[0, textCount) are in use; the rest are empty slots kept for the next texts. */
  private textCount = 0;
  /** UTF-16 code units of the texts kept: past FREQUENT_TEXT_UNITS a purge comes before FREQUENT_PURGE_AT counters. */
  private units = 0;
  private spare: KeyTable | null = null;
  /** The last purge's texts array and counts, reused by the next. */
  private spareTexts: string[] = [];
  private purgeCounts = new Float64Array(0);
  /**
   * Texts counted from their UTF-8 and not read since: text i is arena[spans[3i], spans[3i] +
   * spans[3i + 1]) of spans[3i + 2] UTF-16 units while spans[3i + 1] ≥ 0, and texts[i] once read
   * (textOf). A purge moves its survivors' bytes to the spare arena, so a mostly-distinct
   * column's texts become strings only where the summary is read (top, encode, merge).
   */
  private arena: Uint8Array = new Uint8Array(0);
  private arenaUsed = 0;
  private spans = new Int32Array(0);
  private spareArena: Uint8Array = new Uint8Array(0);
  private spareSpans = new Int32Array(0);
  /** What every purge subtracted, summed: how far below the truth a count may be. */
  offset = 0;
  /** texts[0, copied) are copies already (a purge's survivors), which the next purge keeps as they are. */
  private copied = 0;

  /** Counts `text` `count` times (once by default), keyed by its hash (high, low); true when the counters are over capacity. */
  add(high: number, low: number, text: string, count = 1): boolean {
    this.count(high, low, text, count);
    return this.overFull();
  }

  /**
   * Counts once the text whose UTF-8 is bytes[start, start + length) and whose length is `units`
   * UTF-16 code units (as add, but its string is made only if read); true when over capacity.
   */
  addUtf8(high: number, low: number, bytes: Uint8Array, start: number, length: number, units: number): boolean {
    const table = this.table;
    const slot = table.slotOf(high, low);
    if (table.counts[slot * 2 + 1] === 0) {
      if (units > TOP_VALUE_MAX_LENGTH) this.keep(slot, utf8Text.decode(bytes.subarray(start, start + length)));
      else this.keepBytes(slot, bytes, start, length, units);
    }
    table.counts[slot * 2 + 1]! += 1;
    return this.overFull();
  }

  /** Keeps the text whose UTF-8 is bytes[start, start + length) as the new counter in `slot`'s, copied into the arena. */
  private keepBytes(slot: number, bytes: Uint8Array, start: number, length: number, units: number): void {
    const index = this.textCount++;
    this.table.tags![slot] = index;
    const from = this.arenaUsed;
    if (from + length > this.arena.length) this.arena = grown(this.arena, from + length);
    // A loop, not set(subarray()): a text is a few dozen bytes and a view costs an object.
    const arena = this.arena;
    for (let i = 0; i < length; i++) arena[from + i] = bytes[start + i]!;
    this.arenaUsed = from + length;
    this.spanAt(index, from, length, units);
    this.units += units;
  }

  /** Records text `index`'s place in the arena (length −1: it is texts[index]). */
  private spanAt(index: number, start: number, length: number, units: number): void {
    if (index * 3 + 2 >= this.spans.length) {
      const spans = new Int32Array(Math.max(192, index * 6 + 3));
      spans.set(this.spans);
      this.spans = spans;
    }
    this.spans[index * 3] = start;
    this.spans[index * 3 + 1] = length;
    this.spans[index * 3 + 2] = units;
  }

  /** Text `index`, made from its bytes on first read. */
  private textOf(index: number): string {
    const spans = this.spans;
    const length = spans[index * 3 + 1]!;
    if (length < 0) return this.texts[index]!;
    const start = spans[index * 3]!;
    const text = utf8Text.decode(this.arena.subarray(start, start + length));
    this.texts[index] = text;
    spans[index * 3 + 1] = -1;
    return text;
  }

  /**
   * Past FREQUENT_PURGE_AT counters, or past FREQUENT_CAPACITY whose texts hold more than
   * FREQUENT_TEXT_UNITS: long texts leave exact counting earlier, so the texts kept stay bounded
   * in bytes as well as in number. A purge leaves at most FREQUENT_CAPACITY texts of at most
   * TOP_VALUE_MAX_LENGTH + 1 units, half the budget, so purges stay a thousand new values apart.
   */
  private overFull(): boolean {
    const size = this.table.size;
    return size > FREQUENT_PURGE_AT || (size > FREQUENT_CAPACITY && this.units > FREQUENT_TEXT_UNITS);
  }

  private count(high: number, low: number, text: string, count: number): void {
    const table = this.table;
    const slot = table.slotOf(high, low);
    if (table.counts[slot * 2 + 1] === 0) this.keep(slot, text);
    table.counts[slot * 2 + 1]! += count;
  }

  /** Keeps `text` as the new counter in `slot`'s. */
  private keep(slot: number, text: string): void {
    const index = this.textCount++;
    this.table.tags![slot] = index;
    // Before the first purge a new value is rare past the first few thousand, so it is kept as
    // its own copy; after, the purge copies the survivors (a value that goes costs no copy).
    const kept = text.length > TOP_VALUE_MAX_LENGTH ? detached(cut(text)) : this.offset === 0 ? detached(text) : text;
    this.texts[index] = kept;
    this.spanAt(index, 0, -1, 0);
    this.units += kept.length;
  }

  /** Every key counted, exact while no purge happened. */
  forEachKey(visit: (high: number, low: number) => void): void {
    const table = this.table;
    table.forEach((slot) => visit(table.high(slot), table.low(slot)));
  }

  /** Whether `test` holds for every text kept. */
  everyText(test: (text: string) => boolean): boolean {
    const table = this.table;
    return table.occupied().every((slot) => test(this.textOf(table.tags![slot]!)));
  }

  /**
   * The same counters keyed again: `key` puts a text's key in KEY (hash.ts). A text cut to
   * TOP_VALUE_MAX_LENGTH keeps its old key, which its whole text made.
   */
  rekeyed(key: (text: string) => void): FrequentValues {
    const copy = new FrequentValues();
    const table = this.table;
    copy.table = KeyTable.sized(true, table.size + 1);
    copy.offset = this.offset;
    table.forEach((slot) => {
      const text = this.textOf(table.tags![slot]!);
      let high = table.high(slot);
      let low = table.low(slot);
      if (text.length <= TOP_VALUE_MAX_LENGTH) {
        key(text);
        high = KEY[0]!;
        low = KEY[1]!;
      }
      copy.count(high, low, text, table.count(slot));
    });
    copy.copied = copy.textCount;
    return copy;
  }

  get size(): number {
    return this.table.size;
  }

  /** When over full (overFull), subtracts the count that leaves at most FREQUENT_CAPACITY counters positive. */
  purge(): void {
    while (this.overFull()) {
      const old = this.table;
      const oldCounts = old.counts;
      const slots = old.slots;
      if (this.purgeCounts.length < old.size) this.purgeCounts = new Float64Array(old.size * 2);
      const counts = this.purgeCounts;
      let at = 0;
      for (let slot = 0; slot < slots; slot++) {
        const count = oldCounts[slot * 2 + 1]!;
        if (count !== 0) counts[at++] = count;
      }
      const floor = kthSmallest(counts, at, at - FREQUENT_CAPACITY - 1);
      const texts = this.texts;
      const spans = this.spans;
      const arena = this.arena;
      // Before the first purge every new text was copied as it came (count below).
      const copied = this.offset === 0 ? this.textCount : this.copied;
      // The spare table and texts from the last purge are reused: a purge allocates no buffer.
      this.table = this.spare && this.spare.slots === slots ? this.spare.cleared() : new KeyTable(true, slots);
      const textCount = this.textCount;
      this.texts = this.spareTexts;
      this.spans = this.spareSpans;
      this.arena = this.spareArena;
      this.arenaUsed = 0;
      this.textCount = 0;
      this.units = 0;
      const tags = old.tags!;
      for (let slot = 0; slot < slots; slot++) {
        const count = oldCounts[slot * 2 + 1]! - floor;
        if (count <= 0) continue;
        const index = tags[slot]!;
        const length = spans[index * 3 + 1]!;
        if (length >= 0) {
          // A text still in bytes moves to the new arena unread.
          const table = this.table;
          const kept = table.slotOf(old.high(slot), old.low(slot));
          this.keepBytes(kept, arena, spans[index * 3]!, length, spans[index * 3 + 2]!);
          table.counts[kept * 2 + 1]! += count;
        } else this.count(old.high(slot), old.low(slot), index < copied ? texts[index]! : detached(texts[index]!), count);
      }
      // The texts that went are let go (a slice of a cell's chunk would keep the chunk alive).
      texts.fill("", 0, textCount);
      this.spareTexts = texts;
      this.spareSpans = spans;
      this.spareArena = arena;
      this.spare = old;
      this.offset += floor;
      this.copied = this.textCount;
    }
  }

  merge(other: FrequentValues): void {
    const theirs = other.table;
    theirs.forEach((slot) => this.count(theirs.high(slot), theirs.low(slot), other.textOf(theirs.tags![slot]!), theirs.count(slot)));
    this.offset += other.offset;
    this.purge();
  }

  get approximate(): boolean {
    return this.offset > 0;
  }

  /** The `limit` largest counts, ties by value. */
  top(limit: number): TopValue[] {
    const table = this.table;
    return table
      .occupied()
      .map((slot) => ({ value: this.textOf(table.tags![slot]!), count: table.count(slot) }))
      .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
      .slice(0, limit);
  }

  encode(out: ByteWriter): void {
    const table = this.table;
    out.varuint(this.offset);
    out.varuint(table.size);
    table.forEach((slot) => {
      out.u32(table.high(slot));
      out.u32(table.low(slot));
      out.varuint(table.count(slot));
      out.text(this.textOf(table.tags![slot]!));
    });
  }

  static decode(input: ByteReader): FrequentValues {
    const frequent = new FrequentValues();
    frequent.offset = input.varuint();
    const size = input.varuint();
    frequent.table = KeyTable.sized(true, size + 1);
    for (let i = 0; i < size; i++) {
      const high = input.u32();
      const low = input.u32();
      const count = input.varuint();
      frequent.count(high, low, input.text(), count);
    }
    return frequent;
  }
}

const utf8Text = new TextDecoder();

/** `bytes` copied into a buffer of at least `size` bytes, doubling. */
function grown(bytes: Uint8Array, size: number): Uint8Array {
  const bigger = new Uint8Array(Math.max(size, bytes.length * 2, 4096));
  bigger.set(bytes);
  return bigger;
}

/**
 * A copy of `text` sharing no memory with the string it came from: a cell's text is a slice of the
 * whole chunk it was decoded from, which a kept slice would keep alive for the part. Prefixing
 * makes a new string and slicing it flattens that into one of its own (V8 does so for a slice of a
 * concatenation); short strings are copies already.
 */
function detached(text: string): string {
  return text.length < 13 ? text : ` ${text}`.slice(1);
}

/** The first TOP_VALUE_MAX_LENGTH code units, never half a surrogate pair, then `…`. */
function cut(text: string): string {
  let end = TOP_VALUE_MAX_LENGTH;
  if ((text.charCodeAt(end - 1) & 0xfc00) === 0xd800) end--;
  return `${text.slice(0, end)}…`;
}

/** The k-th smallest (0-based) of items[0 … size − 1], which it reorders: Hoare's quickselect, linear where a sort is not. */
function kthSmallest(items: Float64Array, size: number, k: number): number {
  let lo = 0;
  let hi = size - 1;
  while (lo < hi) {
    const pivot = items[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (items[i]! < pivot) i++;
      while (items[j]! > pivot) j--;
      if (i <= j) {
        const swap = items[i]!;
        items[i++] = items[j]!;
        items[j--] = swap;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return items[k]!;
  }
  return items[k]!;
}
