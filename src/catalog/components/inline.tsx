// Small inline pieces several catalog views share: a timestamp people can read (with the
// exact ISO 8601 value for machines) and a dataset's key words as search links. Publisher text
// in the catalog is direction-isolated (`dir="auto"`, docs/edge-and-caching.md) so no bidi override escapes it.
import { formatDate, homeHref } from "../format.ts";

export function Time({ iso }: { iso: string }) {
  return <time datetime={iso}>{formatDate(iso)}</time>;
}

export interface KeyWordsProps {
  words: string[];
  /** Names the list for screen readers, e.g. "Key words of Cities". */
  label: string;
}

/** Each key word links to a catalog search for it; nothing when there are none. */
export function KeyWords({ words, label }: KeyWordsProps) {
  if (words.length === 0) return null;
  return (
    <ul class="tags" aria-label={label}>
      {words.map((word) => (
        <li>
          <a href={homeHref({ q: word })} dir="auto">
            {word}
          </a>
        </li>
      ))}
    </ul>
  );
}
