// One dataset in the home list: its name (the link to its page), a short description, key
// words, its size (rows, columns, CSV bytes) so it can be judged without opening it, team
// and last update.
import { LIST_DESCRIPTION_CHARS, LIST_KEY_WORDS } from "../catalog-limits.ts";
import { formatBytes, formatCount, knownProperties, truncate } from "../format.ts";
import type { HomeEntry } from "../home-data.ts";
import { datasetHref, homeHref } from "../links.ts";
import { KeyWords, Time } from "./inline.tsx";

export function DatasetItem({ row }: { row: HomeEntry }) {
  const props = knownProperties(row.properties);
  return (
    <li>
      <h2>
        <a href={datasetHref(row.id)} dir="auto">
          {row.name}
        </a>
      </h2>
      {props.description !== "" ? <p dir="auto">{truncate(props.description, LIST_DESCRIPTION_CHARS)}</p> : null}
      <KeyWords words={props.keyWords.slice(0, LIST_KEY_WORDS)} label={`Key words of ${row.name}`} />
      {row.size !== null ? (
        <p>
          {formatCount(row.size.rows, "row", "rows")} · {formatCount(row.size.columns, "column", "columns")} · {formatBytes(row.size.bytes)} CSV
        </p>
      ) : null}
      <p class="muted">
        Team <a href={homeHref({ team: row.team })}>{row.team}</a> · updated <Time iso={row.created} />
      </p>
    </li>
  );
}
