// Hoare's quickselect: the frequent-value purge needs the median counter, and selecting it is
// linear where sorting the counters (V8's TypedArray sort: ~100 ns an element) is not.

/** The k-th smallest (0-based) of items[0 … size − 1], which it reorders. */
export function kthSmallest(items: Float64Array, size: number, k: number): number {
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
