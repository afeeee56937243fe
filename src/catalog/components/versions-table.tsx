// A page of a dataset's version history, newest first, each version with its own downloads.
import { downloadName } from "../../read/download-name.ts";
import type { HistoryEntry } from "../dataset-data.ts";
import { formatBytes } from "../format.ts";
import { Time } from "./inline.tsx";

export interface VersionsTableProps {
  versions: HistoryEntry[];
  latestId: string;
}

export function VersionsTable({ versions, latestId }: VersionsTableProps) {
  return (
    <div class="scroll" role="region" aria-labelledby="versions-caption" tabindex={0}>
      <table>
        <caption id="versions-caption">Versions, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">Version</th>
            <th scope="col">Rows</th>
            <th scope="col">Columns</th>
            <th scope="col">Size</th>
            <th scope="col">Download</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((v) => {
            const short = v.id.slice(0, 8);
            return (
              <tr>
                <td>
                  <Time iso={v.created} />
                  {v.id === latestId ? " (latest)" : ""}
                </td>
                <td>
                  <code title={v.id}>{short}</code>
                </td>
                <td class="num">{v.rowCount.toLocaleString("en-US")}</td>
                <td class="num">{v.columns.length}</td>
                <td class="num">{formatBytes(v.rawBytes)}</td>
                <td>
                  <a href={v.csvPath} download={downloadName(v.fileName, false)} aria-label={`CSV of version ${short}`}>
                    CSV
                  </a>
                  {" · "}
                  <a href={v.gzipPath} download={downloadName(v.fileName, true)} aria-label={`gzip of version ${short}`}>
                    gzip
                  </a>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
