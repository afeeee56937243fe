// `wrangler d1 execute` takes SQL text and cannot bind parameters, so values are rendered as
// literals here and nowhere else. Callers validate ids first; this refuses anything unusual.
export type SqlValue = string | number | null;

/** One SQL literal: NULL, a finite number, or a single-quoted string with quotes doubled. */
export function sqlLiteral(value: SqlValue): string {
  if (value === null) return "NULL";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
    return String(value);
  }
  // Control characters (NUL in particular) have no place in our values.
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new Error("control character in an SQL value");
  return `'${value.replace(/'/g, "''")}'`;
}

/** Tagged template: every interpolation becomes a literal, so values never become SQL. */
export function sql(strings: TemplateStringsArray, ...values: SqlValue[]): string {
  let text = strings[0] ?? "";
  values.forEach((value, i) => {
    text += sqlLiteral(value) + (strings[i + 1] ?? "");
  });
  return text;
}
