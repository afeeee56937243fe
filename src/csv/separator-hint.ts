// docs/api.md#writes: a file that looks separated by `;` or tab is refused with a hint that names the
// separator, rather than read as one wide column or failing with a bare field count.

export type Separator = ";" | "\t";

const SEMICOLON = 0x3b;
const TAB = 0x09;

/** The separator byte `b` stands for, when it is one we recognise but do not accept. */
export function separatorByte(b: number): Separator | null {
  return b === SEMICOLON ? ";" : b === TAB ? "\t" : null;
}

/**
 * The separator that a record read as one unquoted field (`cell`) looks split by: `;` or tab,
 * whichever occurs more often (tab on a tie). Null when the cell holds neither.
 */
export function likelySeparator(cell: string): Separator | null {
  let semicolons = 0;
  let tabs = 0;
  for (let i = 0; i < cell.length; i++) {
    const c = cell.charCodeAt(i);
    if (c === SEMICOLON) semicolons++;
    else if (c === TAB) tabs++;
  }
  if (semicolons === 0 && tabs === 0) return null;
  return tabs >= semicolons ? "\t" : ";";
}

/** How a message names the separator. */
export function separatorName(separator: Separator): string {
  return separator === "\t" ? "tabs" : 'semicolons (";")';
}
