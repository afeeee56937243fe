// The name a browser saves a download under (docs/api.md#writes): the stored name, ending in `.csv` (or
// `.csv.gz` for gzip) whatever the uploader called it, so `page.html` is saved as
// `page.html.csv` and never opens as a page. `source` and the download paths keep the stored name.

/** `cities.csv` → `cities.csv`, `data.CSV` → `data.csv`, `page.html` → `page.html.csv`; `.gz` for gzip. */
export function downloadName(fileName: string, gzip: boolean): string {
  const csv = /\.csv$/i.test(fileName) ? `${fileName.slice(0, -4)}.csv` : `${fileName}.csv`;
  return gzip ? `${csv}.gz` : csv;
}

/** The Parquet twin's name: `cities.csv` → `cities.parquet`; without a final `.csv` the name stays whole (`page.html.parquet`). */
export function parquetFileName(fileName: string): string {
  return `${fileName.replace(/\.csv$/i, "")}.parquet`;
}

/** `Content-Disposition` for a download; stored names are `[A-Za-z0-9._-]` only, so no quoting issue. */
export function contentDisposition(fileName: string, gzip: boolean): string {
  return `attachment; filename="${downloadName(fileName, gzip)}"`;
}
