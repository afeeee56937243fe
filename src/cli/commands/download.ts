// `pubset download`: a version's content to a file or stdout, as the stored gzip or as CSV.
// By ID the client reads the file name from the version's record (its `Link: rel="enclosure"`);
// a `source` path works too.
import { rename, rm } from "node:fs/promises";
import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { DownloadTarget } from "../../client/index.ts";
import { flag, positionals, stringOption, type OptionValues } from "../args.ts";
import { UsageError } from "../cli-error.ts";
import type { Command } from "../command.ts";
import { formatBytes } from "../output.ts";

function target(first: string, version: string | undefined, file: string | undefined): DownloadTarget {
  if (first.startsWith("/") || /^https?:\/\//.test(first)) {
    if (version !== undefined) throw new UsageError("give either a source path or ID [VERSION], not both");
    return { source: first.startsWith("/") ? first : new URL(first).pathname };
  }
  return file === undefined ? { id: first, version } : { id: first, version, file };
}

function wantsCsv(values: OptionValues, output: string | undefined): boolean {
  if (flag(values, "csv") && flag(values, "gzip")) throw new UsageError("--csv and --gzip exclude each other");
  if (flag(values, "csv")) return true;
  if (flag(values, "gzip")) return false;
  if (output === "-") return true;
  return output !== undefined && !output.toLowerCase().endsWith(".gz");
}

export const download: Command = {
  name: "download",
  synopsis: "download ID [VERSION] [-o FILE] [--csv|--gzip]  |  download SOURCE [-o FILE]",
  summary: "save a version's content (default: the stored .gz under its own name)",
  example: "pubset download <id> -o cities.csv",
  details: [
    "--file NAME   skip the file name lookup: the stored name, e.g. cities.csv",
    "-o FILE       where to write; `-` is stdout (CSV). FILE ending in .gz keeps gzip, else CSV",
    "--csv|--gzip  force the format",
  ],
  options: { output: { type: "string", short: "o" }, file: { type: "string" }, csv: { type: "boolean" }, gzip: { type: "boolean" } },
  async run(context, parsed) {
    const [first = "", version] = positionals(parsed, ["ID", "VERSION"], 1);
    const output = stringOption(parsed.values, "output");
    const csv = wantsCsv(parsed.values, output);
    const where = target(first, version, stringOption(parsed.values, "file"));
    const bar = output === "-" ? undefined : context.progress();
    let bytes = 0;
    let path = output ?? "";
    try {
      const result = await context.client().download(where, { format: csv ? "csv" : "gzip", onProgress: bar?.onProgress, signal: context.signal });
      const counted = result.stream.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            bytes += chunk.length;
            controller.enqueue(chunk);
          },
        }),
      );
      // The global ReadableStream is node:stream/web's; only the typings (DOM vs Node) differ.
      const source = Readable.fromWeb(counted as NodeReadableStream<Uint8Array>);
      if (output === "-") {
        await pipeline(source, context.io.stdout, { end: false, signal: context.signal });
        return;
      }
      path = output ?? result.fileName;
      const partial = `${path}.part`;
      try {
        await pipeline(source, createWriteStream(partial, { flags: "w" }), { signal: context.signal });
        await rename(partial, path);
      } catch (error: unknown) {
        await rm(partial, { force: true });
        throw error;
      }
    } finally {
      bar?.done();
    }
    context.print({ file: path, bytes, format: csv ? "csv" : "gzip" }, () => `saved ${path} (${formatBytes(bytes)})\n`);
  },
};
