// The question a dataset page's preview asks (docs/catalog.md "Filter, sort and page"): a `where`
// expression, an `order` and the row to start at, read from the page's own URL so that every
// state of the preview is a plain GET link (no script) and a cache entry of its own.
export interface PreviewRequest {
  /** The `where` expression as typed; "" for none. */
  where: string;
  /** The `order` as in the API: comma-separated names, `-` before one for descending; "" for file order. */
  order: string;
  /** 1-based number of the first answer row shown. */
  row: number;
}

export const NO_PREVIEW_QUERY: PreviewRequest = { where: "", order: "", row: 1 };

/** The preview's request from a page URL; a row number that is not a positive integer is row 1. */
export function previewRequest(params: URLSearchParams): PreviewRequest {
  const row = Number(params.get("row") ?? "1");
  return {
    where: (params.get("where") ?? "").trim(),
    order: (params.get("order") ?? "").trim(),
    row: Number.isSafeInteger(row) && row >= 1 ? row : 1,
  };
}

/** True when the preview filters or sorts, so its rows come from a query scan. */
export function isQueried(request: PreviewRequest): boolean {
  return request.where !== "" || request.order !== "";
}

/**
 * The dataset page showing this preview, landing on the preview; empty values are left out. A
 * link from the page itself is relative (`?order=…`), which keeps a 100-row page light.
 */
export function previewHref(datasetId: string, request: PreviewRequest): string {
  const params = new URLSearchParams();
  if (request.where !== "") params.set("where", request.where);
  if (request.order !== "") params.set("order", request.order);
  if (request.row > 1) params.set("row", String(request.row));
  const search = params.toString();
  return search === "" ? `/datasets/${datasetId}#preview` : `?${search}#preview`;
}

/** The order a column heading's link asks for: ascending first, then descending, then ascending again. */
export function headingOrder(current: string, column: string): string {
  const quoted = /^[A-Za-z_][A-Za-z0-9_]*$/.test(column) ? column : `"${column.replaceAll('"', '""')}"`;
  return current === quoted ? `-${quoted}` : quoted;
}

/** How the preview is sorted by `column`, for its heading's `aria-sort`; undefined when it is not the sort key. */
export function headingSort(current: string, column: string): "ascending" | "descending" | undefined {
  const asc = headingOrder("", column);
  if (current === asc) return "ascending";
  if (current === `-${asc}`) return "descending";
  return undefined;
}
