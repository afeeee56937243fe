// A string column's most frequent values: exact counts while it has at most FREQUENT_PURGE_AT
// distinct values, then the Misra–Gries summary (Misra and Gries 1982, "Finding repeated
// elements"; mergeable as in Agarwal et al. 2012, "Mergeable Summaries"). Counters accumulate up
// to FREQUENT_PURGE_AT, or fewer once their texts pass FREQUENT_TEXT_UNITS together; a purge
// subtracts the count that leaves FREQUENT_CAPACITY of them positive. Each kept count is a lower bound, at most `offset` ≤ n / FREQUENT_CAPACITY below the
// truth: a purge subtracting c takes c from at least FREQUENT_CAPACITY counters. In a column of
// mostly distinct texts nearly every cell makes a counter a purge soon drops, so counters are
// dense arrays behind a small index rather than slots of a table: a new counter is appended, and
// a purge closes the gaps in one pass.
import type { ByteReader, ByteWriter } from "./bytes.ts";
import { KEY } from "./hash.ts";
import { FREQUENT_CAPACITY, FREQUENT_PURGE_AT, FREQUENT_TEXT_UNITS, TOP_VALUE_MAX_LENGTH } from "./limits.ts";

export interface TopValue {
  value: string;
  count: number;
}

/** Counts a purge's floor is first looked for among, by a histogram (floorOf). */
const SMALL_COUNTS = 64;
/** A page span's start when no counter points into the page. */
const PAGE_NONE = 0x7fffffff;

export class FrequentValues {
  /**
   * Counter i: keys[2i] key high, keys[2i + 1] key low, counts[i] its count, and its text:
   * spans[3i + 1] UTF-8 bytes of spans[3i + 2] UTF-16 units while spans[3i + 1] ≥ 0 (told as
   * UTF-8 and not read since), at arena[spans[3i], …) or, while spans[3i] < 0, still in the
   * caller's page at page[−1 − spans[3i], …); texts[i] once read or when told as a string.
   * Counters are kept in the order they were first counted; a purge closes the gaps in place.
   */
  private keys = new Uint32Array(2 * 64);
  private counts = new Float64Array(64);
  private spans = new Int32Array(3 * 64);
  private texts: string[] = [];
  /** Counters in use: counters [0, size). */
  size = 0;
  /** Open addressing over the counters: slot → counter + 1 (0: empty), at most half full. */
  private index = new Int32Array(128);
  private mask = 127;
  private arena: Uint8Array = new Uint8Array(0);
  private arenaUsed = 0;
  /**
   * The buffer the newest texts told as UTF-8 lie in, valid until pageDone (or a text told from
   * another buffer): counters [pageFirst, size) may point into its bytes [pageLow, pageHigh),
   * `pageBytes` of which are theirs.
   */
  private page: Uint8Array | null = null;
  private pageFirst = 0;
  private pageLow = 0;
  private pageHigh = 0;
  private pageBytes = 0;
  /** UTF-16 code units of the texts kept: past FREQUENT_TEXT_UNITS a purge comes before FREQUENT_PURGE_AT counters. */
  private units = 0;
  /** The counts a purge selects its floor from, kept for the next. */
  private purgeCounts = new Float64Array(0);
  /** How many counters hold each count below SMALL_COUNTS, as a purge finds its floor. */
  private histogram = new Int32Array(SMALL_COUNTS);
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
   * UTF-16 code units, keyed by KEY (as add, but its string is made only if read, and its key read
   * rather than passed, string-column.ts observeKeyed says why); true when over capacity.
   */
  addUtf8(bytes: Uint8Array, start: number, length: number, units: number): boolean {
    const high = KEY[0]!;
    const low = KEY[1]!;
    const slot = this.slotOf(high, low);
    const at = this.index[slot]!;
    if (at !== 0) this.counts[at - 1]! += 1;
    else if (units > TOP_VALUE_MAX_LENGTH) this.keep(slot, high, low, utf8Text.decode(bytes.subarray(start, start + length)), 1);
    else this.keepBytes(slot, high, low, bytes, start, length, units, 1);
    return this.overFull();
  }

  /** The index slot of the key (high, low): its counter's, or the empty slot where a new counter for it goes. */
  private slotOf(high: number, low: number): number {
    const index = this.index;
    const keys = this.keys;
    const mask = this.mask;
    let slot = (high ^ low) & mask;
    for (;;) {
      const at = index[slot]!;
      if (at === 0 || (keys[at * 2 - 2] === high && keys[at * 2 - 1] === low)) return slot;
      slot = (slot + 1) & mask;
    }
  }

  /** A new counter in the empty index slot `slot` for the key (high, low) with `count`, its text still to be recorded; returns it. */
  private counterAt(slot: number, high: number, low: number, count: number): number {
    const counter = this.size;
    if (counter === this.counts.length) this.growCounters();
    this.keys[counter * 2] = high;
    this.keys[counter * 2 + 1] = low;
    this.counts[counter] = count;
    this.size = counter + 1;
    this.index[slot] = counter + 1;
    // Kept at most half full, so a probe for a key not counted ends soon.
    if (this.size * 2 > this.mask + 1) this.growIndex();
    return counter;
  }

  /** Puts counter `counter`, keyed (high, low), in the index. */
  private indexCounter(counter: number, high: number, low: number): void {
    const index = this.index;
    const mask = this.mask;
    let slot = (high ^ low) & mask;
    while (index[slot] !== 0) slot = (slot + 1) & mask;
    index[slot] = counter + 1;
  }

  private growCounters(): void {
    const size = this.counts.length * 2;
    const keys = new Uint32Array(size * 2);
    keys.set(this.keys);
    this.keys = keys;
    const counts = new Float64Array(size);
    counts.set(this.counts);
    this.counts = counts;
    const spans = new Int32Array(size * 3);
    spans.set(this.spans);
    this.spans = spans;
  }

  /** Twice the slots, every counter indexed again. */
  private growIndex(): void {
    this.index = new Int32Array((this.mask + 1) * 2);
    this.mask = this.index.length - 1;
    this.reindex();
  }

  /** Indexes counters [0, size) afresh. */
  private reindex(): void {
    this.index.fill(0);
    const keys = this.keys;
    for (let counter = 0; counter < this.size; counter++) this.indexCounter(counter, keys[counter * 2]!, keys[counter * 2 + 1]!);
  }

  /**
   * A new counter whose text is the UTF-8 bytes[start, start + length), left where it is until
   * pageDone, which copies the page's kept texts together (a purge first, its survivors): in a
   * column of mostly distinct texts a new counter a cell, whose bytes one set() moves faster than
   * a loop per text.
   */
  private keepBytes(slot: number, high: number, low: number, bytes: Uint8Array, start: number, length: number, units: number, count: number): void {
    if (bytes !== this.page) {
      this.pageDone();
      this.page = bytes;
      this.pageFirst = this.size;
      this.pageLow = start;
      this.pageHigh = start + length;
    } else {
      if (start < this.pageLow) this.pageLow = start;
      if (start + length > this.pageHigh) this.pageHigh = start + length;
    }
    this.pageBytes += length;
    const counter = this.counterAt(slot, high, low, count);
    const spans = this.spans;
    spans[counter * 3] = -1 - start;
    spans[counter * 3 + 1] = length;
    spans[counter * 3 + 2] = units;
    this.units += units;
  }

  /**
   * The buffer the texts told as UTF-8 lay in is about to be written over: the texts of counters
   * still pointing into it are copied into the arena, at once when they fill most of the span
   * they lie in (a page of mostly distinct texts), else one by one.
   */
  pageDone(): void {
    const page = this.page;
    if (page === null) return;
    this.page = null;
    const { spans, pageLow, pageHigh, pageFirst, size } = this;
    if (pageHigh - pageLow > 2 * this.pageBytes + 64) {
      for (let counter = pageFirst; counter < size; counter++) {
        const start = spans[counter * 3]!;
        const length = spans[counter * 3 + 1]!;
        if (length >= 0 && start < 0) spans[counter * 3] = this.arenaCopy(page, -1 - start, length);
      }
    } else if (pageHigh > pageLow) {
      const shift = this.arenaCopy(page, pageLow, pageHigh - pageLow) - pageLow;
      for (let counter = pageFirst; counter < size; counter++) {
        const start = spans[counter * 3]!;
        if (spans[counter * 3 + 1]! >= 0 && start < 0) spans[counter * 3] = -1 - start + shift;
      }
    }
    this.pageBytes = 0;
  }

  /** Copies bytes[start, start + length) to the arena's end; returns where they went. */
  private arenaCopy(bytes: Uint8Array, start: number, length: number): number {
    const from = this.arenaUsed;
    if (from + length > this.arena.length) this.arena = grown(this.arena, from + length);
    const arena = this.arena;
    // A loop for a text, not set(subarray()): a view costs an object.
    if (length > 64) arena.set(bytes.subarray(start, start + length), from);
    else for (let i = 0; i < length; i++) arena[from + i] = bytes[start + i]!;
    this.arenaUsed = from + length;
    return from;
  }

  /** Text of counter `counter`, made from its bytes on first read. */
  private textOf(counter: number): string {
    const spans = this.spans;
    const length = spans[counter * 3 + 1]!;
    if (length < 0) return this.texts[counter]!;
    const start = spans[counter * 3]!;
    const text = start < 0 ? utf8Text.decode(this.page!.subarray(-1 - start, -1 - start + length)) : utf8Text.decode(this.arena.subarray(start, start + length));
    this.texts[counter] = text;
    spans[counter * 3 + 1] = -1;
    return text;
  }

  /**
   * Past FREQUENT_PURGE_AT counters, or past FREQUENT_CAPACITY whose texts hold more than
   * FREQUENT_TEXT_UNITS: long texts leave exact counting earlier, so the texts kept stay bounded
   * in bytes as well as in number. A purge leaves at most FREQUENT_CAPACITY texts of at most
   * TOP_VALUE_MAX_LENGTH + 1 units, half the budget, so purges stay a thousand new values apart.
   */
  private overFull(): boolean {
    const size = this.size;
    return size > FREQUENT_PURGE_AT || (size > FREQUENT_CAPACITY && this.units > FREQUENT_TEXT_UNITS);
  }

  private count(high: number, low: number, text: string, count: number): void {
    const slot = this.slotOf(high, low);
    const at = this.index[slot]!;
    if (at !== 0) this.counts[at - 1]! += count;
    else this.keep(slot, high, low, text, count);
  }

  /** A new counter for `text` in the empty index slot `slot`. */
  private keep(slot: number, high: number, low: number, text: string, count: number): void {
    const counter = this.counterAt(slot, high, low, count);
    // Before the first purge a new value is rare past the first few thousand, so it is kept as
    // its own copy; after, the purge copies the survivors (a value that goes costs no copy).
    const kept = text.length > TOP_VALUE_MAX_LENGTH ? detached(cut(text)) : this.offset === 0 ? detached(text) : text;
    this.texts[counter] = kept;
    this.spans[counter * 3 + 1] = -1;
    this.units += kept.length;
  }

  /** Every key counted, exact while no purge happened. */
  forEachKey(visit: (high: number, low: number) => void): void {
    const keys = this.keys;
    for (let counter = 0; counter < this.size; counter++) visit(keys[counter * 2]!, keys[counter * 2 + 1]!);
  }

  /** Whether `test` holds for every text kept. */
  everyText(test: (text: string) => boolean): boolean {
    for (let counter = 0; counter < this.size; counter++) if (!test(this.textOf(counter))) return false;
    return true;
  }

  /**
   * The same counters keyed again: `key` puts a text's key in KEY (hash.ts). A text cut to
   * TOP_VALUE_MAX_LENGTH keeps its old key, which its whole text made.
   */
  rekeyed(key: (text: string) => void): FrequentValues {
    const copy = new FrequentValues();
    copy.offset = this.offset;
    const keys = this.keys;
    for (let counter = 0; counter < this.size; counter++) {
      const text = this.textOf(counter);
      let high = keys[counter * 2]!;
      let low = keys[counter * 2 + 1]!;
      if (text.length <= TOP_VALUE_MAX_LENGTH) {
        key(text);
        high = KEY[0]!;
        low = KEY[1]!;
      }
      copy.count(high, low, text, this.counts[counter]!);
    }
    copy.copied = copy.size;
    return copy;
  }

  /** When over full (overFull), subtracts the count that leaves at most FREQUENT_CAPACITY counters positive. */
  purge(): void {
    while (this.overFull()) {
      const size = this.size;
      const counts = this.counts;
      const floor = this.floorOf(size - FREQUENT_CAPACITY - 1);
      const { keys, spans, texts } = this;
      // Before the first purge every new text was copied as it came (keep).
      const copied = this.offset === 0 ? size : this.copied;
      // The survivors move down over the counters that go, in order, and their bytes down the
      // arena: a survivor's place is never after its old one, so nothing is overwritten unread.
      let kept = 0;
      let used = 0;
      let units = 0;
      for (let counter = 0; counter < size; counter++) {
        const count = counts[counter]! - floor;
        if (count <= 0) continue;
        keys[kept * 2] = keys[counter * 2]!;
        keys[kept * 2 + 1] = keys[counter * 2 + 1]!;
        counts[kept] = count;
        const length = spans[counter * 3 + 1]!;
        if (length >= 0) {
          const start = spans[counter * 3]!;
          // A text still in the page is copied now (counters in the arena all come before it).
          if (start < 0) {
            this.arenaUsed = used;
            this.arenaCopy(this.page!, -1 - start, length);
          } else if (start !== used) this.arena.copyWithin(used, start, start + length);
          spans[kept * 3] = used;
          spans[kept * 3 + 1] = length;
          spans[kept * 3 + 2] = spans[counter * 3 + 2]!;
          used += length;
          units += spans[kept * 3 + 2]!;
        } else {
          const text = counter < copied ? texts[counter]! : detached(texts[counter]!);
          texts[kept] = text;
          spans[kept * 3 + 1] = -1;
          units += text.length;
        }
        kept++;
      }
      // The texts that went are let go (a slice of a cell's chunk would keep the chunk alive).
      texts.fill("", kept, size);
      this.size = kept;
      this.arenaUsed = used;
      // No counter points into the page now: its texts that are left were copied.
      this.pageFirst = kept;
      this.pageLow = PAGE_NONE;
      this.pageHigh = this.pageBytes = 0;
      this.units = units;
      this.reindex();
      this.offset += floor;
      this.copied = kept;
    }
  }

  /**
   * The k-th smallest (0-based) of counts[0, size): read off a histogram of the counts below
   * SMALL_COUNTS when it lies there, as it does in a column of mostly distinct values (nearly
   * every count 1), else Hoare's quickselect over a copy.
   */
  private floorOf(k: number): number {
    const size = this.size;
    const counts = this.counts;
    const histogram = this.histogram.fill(0);
    for (let counter = 0; counter < size; counter++) {
      const count = counts[counter]!;
      if (count < SMALL_COUNTS) histogram[count]!++;
    }
    let below = 0;
    for (let count = 1; count < SMALL_COUNTS; count++) {
      below += histogram[count]!;
      if (below > k) return count;
    }
    if (this.purgeCounts.length < size) this.purgeCounts = new Float64Array(size * 2);
    const selected = this.purgeCounts;
    selected.set(counts.subarray(0, size));
    return kthSmallest(selected, size, k);
  }

  merge(other: FrequentValues): void {
    for (let counter = 0; counter < other.size; counter++) {
      this.count(other.keys[counter * 2]!, other.keys[counter * 2 + 1]!, other.textOf(counter), other.counts[counter]!);
    }
    this.offset += other.offset;
    this.purge();
  }

  get approximate(): boolean {
    return this.offset > 0;
  }

  /** The `limit` largest counts, ties by value. */
  top(limit: number): TopValue[] {
    const values: TopValue[] = [];
    for (let counter = 0; counter < this.size; counter++) values.push({ value: this.textOf(counter), count: this.counts[counter]! });
    return values.sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0)).slice(0, limit);
  }

  encode(out: ByteWriter): void {
    out.varuint(this.offset);
    out.varuint(this.size);
    for (let counter = 0; counter < this.size; counter++) {
      out.u32(this.keys[counter * 2]!);
      out.u32(this.keys[counter * 2 + 1]!);
      out.varuint(this.counts[counter]!);
      this.encodeText(out, counter);
    }
  }

  /**
   * Writes counter `counter`'s text: its bytes as they are when they are still bytes and all
   * ASCII (so well-formed UTF-8 whoever wrote them), else its string encoded, as decodeSummary
   * reads only well-formed UTF-8.
   */
  private encodeText(out: ByteWriter, counter: number): void {
    const spans = this.spans;
    const length = spans[counter * 3 + 1]!;
    if (length >= 0) {
      const at = spans[counter * 3]!;
      const bytes = at < 0 ? this.page! : this.arena;
      const start = at < 0 ? -1 - at : at;
      let high = 0;
      for (let i = start; i < start + length; i++) high |= bytes[i]!;
      if (high < 0x80) {
        out.utf8(bytes, start, length);
        return;
      }
    }
    out.text(this.textOf(counter));
  }

  static decode(input: ByteReader): FrequentValues {
    const frequent = new FrequentValues();
    frequent.offset = input.varuint();
    const size = input.varuint();
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
