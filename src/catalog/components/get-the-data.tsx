// Downloads of the latest version (plain CSV, and the gzip file that is the record's
// `source`) and ready-to-copy commands for the CLI and curl.
import type { Downloads } from "../dataset-data.ts";
import { formatBytes } from "../format.ts";

export interface GetTheDataProps {
  datasetId: string;
  fileName: string;
  downloads: Downloads;
  /** The site's origin, so the curl line works pasted anywhere. */
  origin: string;
}

export function GetTheData({ datasetId, fileName, downloads, origin }: GetTheDataProps) {
  const latestCsv = `${origin}/v1/dataset/${datasetId}/latest/${fileName}`;
  const commands = [
    `pubset download ${datasetId} -o ${fileName} --url ${origin}`,
    `curl -fL --compressed -o ${fileName} ${latestCsv}`,
  ].join("\n");
  return (
    <>
      <p>
        <a class="button" href={downloads.csvPath} download={fileName}>
          Download CSV ({formatBytes(downloads.csvBytes)})
        </a>
        <a class="button" href={downloads.gzipPath} download={`${fileName}.gz`}>
          Download gzip ({formatBytes(downloads.gzipBytes)})
        </a>
      </p>
      <p id="commands-hint" class="hint">
        From a terminal, with the pubset CLI or curl (both always fetch the latest version):
      </p>
      <pre tabindex={0} aria-describedby="commands-hint">
        <code>{commands}</code>
      </pre>
    </>
  );
}
