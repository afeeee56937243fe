// `GET /`: the catalog's front page — search form, team filter and one page of public
// datasets, newest first (best match first when searching).
import { MAX_SEARCH_QUERY_LENGTH } from "../../config.ts";
import { DatasetItem } from "../components/dataset-item.tsx";
import { SearchForm } from "../components/search-form.tsx";
import type { HomeData, HomeQuery } from "../home-data.ts";
import { homeHref } from "../links.ts";
import { Layout } from "./layout.tsx";

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
