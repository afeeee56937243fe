// `GET /`: the catalog's front page — the search form (full-text words and a team filter, a
// plain GET form that works without JavaScript; an owner filter, set by following an owner link,
// rides along as a hidden field), and one page of public datasets, newest first (best match first
// when searching), each as a list item.
import { MAX_SEARCH_QUERY_LENGTH } from "../../config.ts";
import type { HomeData, HomeQuery, HomeEntry } from "../home-data.ts";
import { homeHref, formatBytes, formatCount, knownProperties, truncate, datasetHref } from "../format.ts";
import { Layout } from "./layout.tsx";
import { LIST_DESCRIPTION_CHARS, LIST_KEY_WORDS } from "../catalog-limits.ts";
import { KeyWords, Time } from "../components/inline.tsx";

function summary(query: HomeQuery): string {
  const parts: string[] = [];
  if (query.q !== "") parts.push(`matching “${query.q}”`);
  if (query.team !== "") parts.push(`of team ${query.team}`);
  if (query.owner !== "") parts.push(`owned by ${query.owner}`);
  return parts.length === 0 ? "Newest first." : `Datasets ${parts.join(", ")}${query.q !== "" ? ", best match first" : ", newest first"}.`;
}

export function HomePage({ data }: { data: HomeData }) {
  const { query } = data;
  const filtered = query.q !== "" || query.team !== "" || query.owner !== "";
  return (
    <Layout
      title=""
      description="Public CSV datasets: search, preview and download."
      // Where catalog harvesters find the whole catalog as DCAT (docs/catalog.md#catalog-metadata).
      head={<link rel="alternate" type="application/ld+json" href="/catalog.jsonld" title="DCAT catalog" />}
    >
      <h1>Public datasets</h1>
      <SearchForm query={query} teams={data.teams} maxLength={MAX_SEARCH_QUERY_LENGTH} />
      {data.problem !== null ? (
        <p class="notice" id="problem">
          {data.problem}
        </p>
      ) : (
        <>
          <p class="muted">
            {summary(query)}
            {filtered ? (
              <>
                {" "}
                <a href="/">Show all datasets</a>
              </>
            ) : null}
          </p>
          {data.datasets.length === 0 ? (
            <p>{filtered ? "No public dataset matches." : "No public datasets yet."}</p>
          ) : (
            <ol class="datasets">
              {data.datasets.map((row) => (
                <DatasetItem row={row} />
              ))}
            </ol>
          )}
        </>
      )}
      <nav class="pager" aria-label="Pages">
        {query.cursor !== "" ? <a href={homeHref({ ...query, cursor: "" })}>First page</a> : null}
        {data.nextHref !== null ? (
          <a href={data.nextHref} rel="next">
            Next page
          </a>
        ) : null}
      </nav>
    </Layout>
  );
}

export interface SearchFormProps {
  query: HomeQuery;
  teams: string[];
  maxLength: number;
}

export function SearchForm({ query, teams, maxLength }: SearchFormProps) {
  const options = query.team !== "" && !teams.includes(query.team) ? [query.team, ...teams] : teams;
  return (
    <form class="search" method="get" action="/" role="search">
      <div class="q">
        <label for="q">Search datasets</label>
        <input id="q" name="q" type="search" value={query.q} maxlength={maxLength} aria-describedby="q-hint" />
      </div>
      <div>
        <label for="team">Team</label>
        <select id="team" name="team">
          <option value="" selected={query.team === ""}>
            All teams
          </option>
          {options.map((team) => (
            <option value={team} selected={team === query.team}>
              {team}
            </option>
          ))}
        </select>
      </div>
      {query.owner !== "" ? <input type="hidden" name="owner" value={query.owner} /> : null}
      <div>
        <button type="submit">Search</button>
      </div>
      <p id="q-hint" class="hint">
        Every word must appear in the name, description, key words, contact or a column's name or title; the last may be the start of a word.
      </p>
    </form>
  );
}

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
