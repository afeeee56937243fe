// Every URL the catalog writes into a page, built in one place so query values are always
// encoded and pages agree on the shape of their own links.

export interface HomeLink {
  q?: string;
  team?: string;
  owner?: string;
  cursor?: string;
}

/** The home page with these filters; empty values are left out. */
export function homeHref(query: HomeLink): string {
  const params = new URLSearchParams();
  for (const name of ["q", "team", "owner", "cursor"] as const) {
    const value = query[name];
    if (value) params.set(name, value);
  }
  const search = params.toString();
  return search === "" ? "/" : `/?${search}`;
}

/** A dataset's page; with a history cursor, that page of its versions. */
export function datasetHref(id: string, versionsCursor?: string): string {
  return versionsCursor === undefined ? `/datasets/${id}` : `/datasets/${id}?${new URLSearchParams({ versions: versionsCursor })}`;
}

/** The plain-CSV download of a version (its `source` without `.gz`). */
export function csvPath(datasetId: string, versionId: string, fileName: string): string {
  return `/v1/dataset/${datasetId}/${versionId}/${fileName}`;
}
