// The charts of the column summaries, drawn on the server as inline SVG (no script; colours come
// from classes of the page's stylesheet, so both colour schemes apply). A histogram sits in the
// summary of a disclosure whose table lists its bins: a keyboard reaches the chart there, a
// screen reader hears its label, and anyone may open the counts. Top values are a table whose
// rows carry their bar, the bar hidden from assistive technology since the count is the text.
// Both tables are two columns with a header row, so each body row's first cell heads it without
// a `scope` (HTML's auto scope); the bytes matter with up to 40 columns on a page.
import { truncate } from "../format.ts";
import { SUMMARY_VALUE_CHARS } from "../catalog-limits.ts";
import type { Scalar } from "../../columnar/statistics/numeric-document.ts";
import { estimated, formatScalar, formatWhole } from "../statistics-format.ts";

/** The chart's drawing box: bars fill [0, 100] × [0, HEIGHT], the baseline under them. */
const HEIGHT = 40;

export interface Bin {
  from: Scalar;
  to: Scalar;
  count: number;
}

export interface HistogramProps {
  name: string;
  bins: Bin[];
  approximate: boolean;
}

export function Histogram({ name, bins, approximate }: HistogramProps) {
  const first = bins[0];
  const last = bins[bins.length - 1];
  if (!first || !last) return null;
  const counts = bins.map((bin) => bin.count);
  const tallest = Math.max(...counts);
  const peak = bins[counts.indexOf(tallest)] ?? first;
  const total = counts.reduce((a, b) => a + b, 0);
  const counted = (n: number) => estimated(formatWhole(n), approximate);
  const label =
    `Histogram of ${name}: ${counted(total)} values in ${bins.length} ${bins.length === 1 ? "bin" : "equal bins"} ` +
    `from ${formatScalar(first.from)} to ${formatScalar(last.to)}; the tallest, ${formatScalar(peak.from)} to ${formatScalar(peak.to)}, holds ${counted(tallest)}.`;
  return (
    <details class="chart">
      <summary>
        <svg class="hist" viewBox={`0 0 100 ${HEIGHT + 1}`} preserveAspectRatio="none" role="img" aria-label={label}>
          <path d={bars(counts, tallest)} />
          <rect y={HEIGHT} width="100" height="1" />
        </svg>
        <span class="axis" aria-hidden="true">
          <span dir="auto">{formatScalar(first.from)}</span>
          <span dir="auto">{formatScalar(last.to)}</span>
        </span>
        <span class="more">Counts per bin</span>
      </summary>
      <table>
        <caption>{approximate ? "Values per bin (approximate counts)" : "Values per bin"}</caption>
        <thead>
          <tr>
            <th scope="col">Bin</th>
            <th scope="col">
              Count
            </th>
          </tr>
        </thead>
        <tbody>
          {bins.map((bin) => (
            <tr>
              <th>
                {formatScalar(bin.from)} to {formatScalar(bin.to)}
              </th>
              <td>{formatWhole(bin.count)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

const round = (n: number) => Math.round(n * 10) / 10;

/** One closed subpath per non-empty bin (a path is a fraction of the bytes of as many rects). */
function bars(counts: number[], tallest: number): string {
  const width = 100 / counts.length;
  return counts
    .map((count, i) => {
      if (count === 0 || tallest === 0) return "";
      const height = Math.max((count / tallest) * HEIGHT, 1);
      return `M${round(i * width + width * 0.06)} ${HEIGHT}V${round(HEIGHT - height)}h${round(width * 0.88)}V${HEIGHT}z`;
    })
    .join("");
}

export interface TopValuesProps {
  caption: string;
  values: { value: string; count: number }[];
}

/** The most frequent values with their counts, each row with a bar scaled to the first. */
export function TopValues({ caption, values }: TopValuesProps) {
  if (values.length === 0) return null;
  const most = Math.max(...values.map((v) => v.count), 1);
  return (
    <table class="top">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Value</th>
          <th scope="col">
            Count
          </th>
        </tr>
      </thead>
      <tbody>
        {values.map(({ value, count }) => (
          <tr>
            <th dir="auto">
              {truncate(value, SUMMARY_VALUE_CHARS)}
              <svg class="bar" aria-hidden="true">
                <rect width={`${round(Math.max((count / most) * 100, 0.5))}%`} height="4" />
              </svg>
            </th>
            <td>{formatWhole(count)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
