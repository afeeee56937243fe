// Downloads of the latest version (plain CSV, and the gzip file that is the record's
// `source`) and ready-to-copy commands for the CLI and curl.
import { downloadName } from "../../read/download-name.ts";
import type { Downloads } from "../dataset-data.ts";
import { formatBytes } from "../format.ts";

export interface GetTheDataProps {
  datasetId: string;
  fileName: string;
  downloads: Downloads;
  /** The configured public origin (PUBLIC_ORIGIN), so the curl line works pasted anywhere. */
  origin: string;
}

export function GetTheData({ datasetId, fileName, downloads, origin }: GetTheDataProps) {
  const latestCsv = `${origin}/v1/dataset/${datasetId}/latest/${fileName}`;
  const saveAs = downloadName(fileName, false);
  const commands = [
    `pubset download ${datasetId} -o ${saveAs} --url ${origin}`,
    `curl -fL --compressed -o ${saveAs} ${latestCsv}`,
  ].join("\n");
  return (
    <>
      <p>
        <a class="button" href={downloads.csvPath} download={saveAs}>
          Download CSV ({formatBytes(downloads.csvBytes)})
        </a>
        <a class="button" href={downloads.gzipPath} download={downloadName(fileName, true)}>
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
