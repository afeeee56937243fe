// Text as the query language compares it (docs/queries.md#comparisons): by Unicode code point, as
// DuckDB compares UTF-8 bytes, not by UTF-16 code unit as JavaScript's `<` does (which puts 😀,
// U+1F600, below U+E000–U+FFFF); and LIKE, case-sensitive, `_` matching one code point.

/** A UTF-16 unit moved so that unit order is code point order: surrogates above U+E000–U+FFFF. */
function fixup(unit: number): number {
  return unit >= 0xd800 ? (unit >= 0xe000 ? unit - 0x800 : unit + 0x2000) : unit;
}

export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return fixup(x) < fixup(y) ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

/** A LIKE pattern cut into pieces: literal text, `_` (one code point) and `%` (any run). */
export type LikePiece = string | { any: "one" | "run" };

/** Cuts `pattern`; `escape` (one code point or null) makes the next code point literal. Null when the pattern ends with the escape. */
export function likePieces(pattern: string, escape: string | null): LikePiece[] | null {
  const pieces: LikePiece[] = [];
  let text = "";
  const points = [...pattern];
  for (let i = 0; i < points.length; i++) {
    const point = points[i]!;
    if (point === escape) {
      const next = points[++i];
      if (next === undefined) return null;
      text += next;
    } else if (point === "%" || point === "_") {
      if (text) pieces.push(text);
      text = "";
      const last = pieces.at(-1);
      // `%%` matches what `%` matches: keep one run.
      if (point === "_") pieces.push({ any: "one" });
      else if (typeof last !== "object" || last.any !== "run") pieces.push({ any: "run" });
    } else {
      text += point;
    }
  }
  if (text) pieces.push(text);
  return pieces;
}

function pointLength(text: string, at: number): number {
  const unit = text.charCodeAt(at);
  return unit >= 0xd800 && unit <= 0xdbff && at + 1 < text.length ? 2 : 1;
}

/** Whether `text` matches the pieces: greedy with backtracking to the last `%` only, O(n·m) at worst. */
export function likeMatches(pieces: readonly LikePiece[], text: string): boolean {
  let piece = 0;
  let at = 0;
  let runPiece = -1;
  let runAt = 0;
  for (;;) {
    if (piece < pieces.length) {
      const p = pieces[piece]!;
      if (typeof p === "string") {
        if (text.startsWith(p, at)) {
          at += p.length;
          piece++;
          continue;
        }
      } else if (p.any === "run") {
        runPiece = piece++;
        runAt = at;
        continue;
      } else if (at < text.length) {
        at += pointLength(text, at);
        piece++;
        continue;
      }
    } else if (at === text.length) {
      return true;
    }
    if (runPiece < 0 || runAt >= text.length) return false;
    runAt += pointLength(text, runAt);
    at = runAt;
    piece = runPiece + 1;
  }
}

/** The literal text every match starts with ("" when the pattern starts with a wildcard). */
export function likePrefix(pieces: readonly LikePiece[]): string {
  const first = pieces[0];
  return typeof first === "string" ? first : "";
}

/** Whether the pattern has no wildcard: LIKE is then equality with this text. */
export function likeExact(pieces: readonly LikePiece[]): string | null {
  if (pieces.length === 0) return "";
  return pieces.length === 1 && typeof pieces[0] === "string" ? pieces[0] : null;
}
