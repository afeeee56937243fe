// Keeps only the first k items of an order while a scan streams past (docs/queries.md#ordering):
// `order` with `offset` and `limit` needs the offset + limit best rows, never the whole answer.
// A binary heap with the worst kept item on top: each row costs O(log k).

export class TopK<T> {
  private readonly heap: T[] = [];
  private readonly limit: number;
  private readonly compare: (a: T, b: T) => number;

  /** `compare` must be a strict total order (ranked rows: ties broken by position). */
  constructor(limit: number, compare: (a: T, b: T) => number) {
    this.limit = Math.max(0, Math.floor(limit));
    this.compare = compare;
  }

  get size(): number {
    return this.heap.length;
  }

  /** Offers an item; whether it is kept (for now). */
  push(item: T): boolean {
    const heap = this.heap;
    if (heap.length < this.limit) {
      heap.push(item);
      this.siftUp(heap.length - 1);
      return true;
    }
    if (this.limit === 0 || this.compare(item, heap[0]!) >= 0) return false;
    heap[0] = item;
    this.siftDown(0);
    return true;
  }

  /** The kept items, best first. */
  sorted(): T[] {
    return [...this.heap].sort(this.compare);
  }

  private siftUp(index: number): void {
    const heap = this.heap;
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(heap[i]!, heap[parent]!) <= 0) return;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private siftDown(index: number): void {
    const heap = this.heap;
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < heap.length && this.compare(heap[left]!, heap[worst]!) > 0) worst = left;
      if (right < heap.length && this.compare(heap[right]!, heap[worst]!) > 0) worst = right;
      if (worst === i) return;
      [heap[i], heap[worst]] = [heap[worst]!, heap[i]!];
      i = worst;
    }
  }
}
