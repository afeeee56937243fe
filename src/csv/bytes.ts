// Small byte-array helpers shared by the CSV scanner's parts.

export const EMPTY = new Uint8Array(0);

export function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
