// `pubset export`: the rows that answer a question (docs/queries.md), the whole answer as CSV,
// streamed from `/rows.csv` to a file or stdout. A file is written beside its name and renamed
// when complete, so an interrupted export never leaves a short file under the name asked for.
import { rename, rm } from "node:fs/promises";
import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { positionals, stringOption } from "../args.ts";
import type { Command } from "../command.ts";
import { formatBytes } from "../output.ts";
import { QUERY_DETAILS, QUERY_OPTIONS, rowsQuery } from "./query-options.ts";

export const exportRows: Command = {
  name: "export",
  synopsis: "export ID [VERSION] [--where EXPR] [--columns A,B] [--order C,-D] [-o FILE]",
  summary: "save every row that matches a question as CSV",
  example: "pubset export <id> --where \"state = 'NY'\" --order -population -o ny.csv",
  details: [...QUERY_DETAILS, "-o FILE           where to write (default: stdout)"],
  options: { ...QUERY_OPTIONS, output: { type: "string", short: "o" } },
  async run(context, parsed) {
    const [id = "", version] = positionals(parsed, ["ID", "VERSION"], 1);
    const output = stringOption(parsed.values, "output");
    const body = await context.client().exportRows(id, { version, ...rowsQuery(parsed.values), signal: context.signal });
    let bytes = 0;
    const counted = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          bytes += chunk.length;
          controller.enqueue(chunk);
        },
      }),
    );
    // The global ReadableStream is node:stream/web's; only the typings (DOM vs Node) differ.
    const stream = Readable.fromWeb(counted as NodeReadableStream<Uint8Array>);
    if (output === undefined || output === "-") {
      await pipeline(stream, context.io.stdout, { end: false, signal: context.signal });
      return;
    }
    const part = `${output}.part`;
    try {
      await pipeline(stream, createWriteStream(part), { signal: context.signal });
    } catch (error: unknown) {
      await rm(part, { force: true });
      throw error;
    }
    await rename(part, output);
    context.print({ file: output, bytes }, () => `saved ${output} (${formatBytes(bytes)})\n`);
  },
};
