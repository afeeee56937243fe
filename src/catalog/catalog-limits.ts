// How much one catalog page shows. Small enough that a page stays light on a phone; the API
// (`/v1/dataset`, `/rows`, `/versions`) serves anything beyond these.

/** Datasets per page of the home list. */
export const CATALOG_PAGE_SIZE = 20;
/** Teams offered in the home page's team filter. */
export const CATALOG_MAX_TEAMS = 500;
/** Characters of a description in the home list. */
export const LIST_DESCRIPTION_CHARS = 280;
/** Key words shown per dataset in the home list. */
export const LIST_KEY_WORDS = 12;
/** Versions per page of a dataset's history. */
export const VERSIONS_PAGE_SIZE = 20;
/** Data rows in a dataset page's preview. */
export const PREVIEW_ROWS = 100;
/** Columns shown in the preview; wider datasets show the first ones and say so. */
export const PREVIEW_COLUMNS = 40;
/** Characters shown per preview cell. */
export const PREVIEW_CELL_CHARS = 120;
/** Cell characters read for the preview; a dataset of huge rows previews fewer of them. */
export const PREVIEW_MAX_CHARS = 200_000;
/** Columns summarised on a dataset page (statistics, histogram); the API's `/statistics` has them all. */
export const SUMMARY_COLUMNS = 40;
/** Bytes of the statistics document a page reads at most: room for 40 columns of long top values. */
export const SUMMARY_MAX_BYTES = 512 * 1024;
/** Characters shown of a top value. */
export const SUMMARY_VALUE_CHARS = 60;
/** Datasets per page of `/catalog.jsonld` by default, and the most a `?limit=` may ask for. */
export const FEED_PAGE_SIZE = 20;
export const FEED_MAX_PAGE_SIZE = 100;
/** Newest published versions each dataset lists in `dcat:hasVersion`; `/versions` has them all. */
export const FEED_VERSIONS_PER_DATASET = 100;
