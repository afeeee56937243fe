// `pubset download`: a version's content to a file or stdout, as the stored gzip, as CSV, or as
// its Parquet twin (waited for while it is being built).
// By ID the client reads the file name from the version's record (its `Link: rel="enclosure"`);
// a `source` path works too. An interrupted download resumes from FILE.part (partial-download.ts).
import { rename } from "node:fs/promises";
import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { downloadFileName, type DownloadTarget } from "../../client/index.ts";
import { flag, positionals, stringOption, type OptionValues } from "../args.ts";
import { UsageError } from "../cli-error.ts";
import type { Command } from "../command.ts";
import { formatBytes } from "../output.ts";
import { PartialDownload } from "../partial-download.ts";

function target(first: string, version: string | undefined, file: string | undefined): DownloadTarget {
  if (first.startsWith("/") || /^https?:\/\//.test(first)) {
    if (version !== undefined) throw new UsageError("give either a source path or ID [VERSION], not both");
    return { source: first.startsWith("/") ? first : new URL(first).pathname };
  }
  return file === undefined ? { id: first, version } : { id: first, version, file };
}

type Format = "gzip" | "csv" | "parquet";
const FORMATS: readonly Format[] = ["gzip", "csv", "parquet"];

/** `--format F`, or one of `--csv`/`--gzip`/`--parquet`, else what `-o FILE` ends in (CSV for stdout). */
function chosenFormat(values: OptionValues, output: string | undefined): Format {
  const named = stringOption(values, "format");
  const flags = FORMATS.filter((format) => flag(values, format));
  if (named !== undefined && !FORMATS.includes(named as Format)) throw new UsageError(`--format takes ${FORMATS.join(", ")}`);
  const chosen = [...new Set([...(named === undefined ? [] : [named as Format]), ...flags])];
  if (chosen.length > 1) throw new UsageError(`choose one format, not ${chosen.join(" and ")}`);
  if (chosen[0]) return chosen[0];
  if (output === "-") return "csv";
  if (output === undefined) return "gzip";
  const lower = output.toLowerCase();
  return lower.endsWith(".gz") ? "gzip" : lower.endsWith(".parquet") ? "parquet" : "csv";
}

export const download: Command = {
  name: "download",
  synopsis: "download ID [VERSION] [-o FILE] [--format gzip|csv|parquet]  |  download SOURCE [-o FILE]",
  summary: "save a version's content (default: the stored .gz under its own name)",
  example: "pubset download <id> -o cities.csv",
  details: [
    "--file NAME   skip the file name lookup: the stored name, e.g. cities.csv",
    "-o FILE       where to write; `-` is stdout (CSV). FILE ending in .gz keeps gzip, .parquet is Parquet, else CSV",
    "--format F    gzip, csv or parquet (also --gzip, --csv, --parquet); parquet waits while it is being built",
    "An interrupted download leaves FILE.part (and FILE.part.json); the same command resumes it.",
  ],
  options: {
    output: { type: "string", short: "o" },
    file: { type: "string" },
    format: { type: "string" },
    csv: { type: "boolean" },
    gzip: { type: "boolean" },
    parquet: { type: "boolean" },
  },
  async run(context, parsed) {
    const [first = "", version] = positionals(parsed, ["ID", "VERSION"], 1);
    const output = stringOption(parsed.values, "output");
    const format = chosenFormat(parsed.values, output);
    const client = context.client();
    const source = await client.downloadPath(target(first, version, stringOption(parsed.values, "file")), { signal: context.signal });
    const toStdout = output === "-";
    const path = output ?? downloadFileName(source, format);
    const partial = toStdout ? null : new PartialDownload(path);
    const resume = partial?.resumable(source, format) ?? undefined;
    const bar = toStdout ? undefined : context.progress();
    let bytes = 0;
    try {
      const result = await client.download({ source }, { format, resume, onProgress: bar?.onProgress, signal: context.signal });
      bytes = result.offset;
      const counted = result.stream.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            bytes += chunk.length;
            controller.enqueue(chunk);
          },
        }),
      );
      // The global ReadableStream is node:stream/web's; only the typings (DOM vs Node) differ.
      const stream = Readable.fromWeb(counted as NodeReadableStream<Uint8Array>);
      if (partial === null) {
        await pipeline(stream, context.io.stdout, { end: false, signal: context.signal });
        return;
      }
      if (result.offset > 0) context.note(`resuming ${path} at ${formatBytes(result.offset)}`);
      if (result.etag === null) await partial.forget();
      else await partial.remember({ source, format, etag: result.etag });
      try {
        await pipeline(stream, createWriteStream(partial.part, { flags: result.offset > 0 ? "a" : "w" }), { signal: context.signal });
      } catch (error: unknown) {
        // What arrived stays for a rerun to resume, when the server named the file's version.
        if (result.etag === null) await partial.discard();
        else context.note(`pubset: kept ${formatBytes(bytes)} in ${partial.part}; run the same command again to resume`);
        throw error;
      }
      await rename(partial.part, path);
      await partial.forget();
    } finally {
      bar?.done();
    }
    context.print({ file: path, bytes, format }, () => `saved ${path} (${formatBytes(bytes)})\n`);
  },
};
