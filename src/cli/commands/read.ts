// The read commands: ls, get, versions, schema, rows.
import { spdxLicense, spdxUrl } from "../../model/licenses.ts";
import type { DatasetListItem, DatasetTeamListItem, SchemaField, VersionSummary } from "../../client/index.ts";
import { flag, integerOption, positionals, stringOption } from "../args.ts";
import { UsageError } from "../cli-error.ts";
import type { Command } from "../command.ts";
import { QUERY_DETAILS, QUERY_OPTIONS, rowsQuery } from "./query-options.ts";
import { formatBytes, formatObjects, formatRecord, formatTable } from "../output.ts";
import { chosenColumns, csvText, fitTable } from "../wide-table.ts";

const MAX_PAGE = 1000;

export const ls: Command = {
  name: "ls",
  synopsis: "ls [--team T] [--owner U] [--q WORDS] [--limit N]",
  summary: "list datasets (signed: your team's; else public ones), newest or best match first",
  example: "pubset ls --q cities --limit 10",
  details: ["--team T      only team T's datasets", "--owner U     only user U's datasets", "--q WORDS     full-text search", "--limit N     stop after N datasets"],
  options: { team: { type: "string" }, owner: { type: "string" }, q: { type: "string" }, limit: { type: "string" } },
  async run(context, parsed) {
    positionals(parsed, [], 0);
    const { values } = parsed;
    const limit = integerOption(values, "limit", 1);
    const filter = { team: stringOption(values, "team"), owner: stringOption(values, "owner"), q: stringOption(values, "q") };
    const results: Array<DatasetListItem | DatasetTeamListItem> = [];
    for await (const item of context.client().list({ ...filter, limit: limit === undefined ? undefined : Math.min(limit, MAX_PAGE) }, { signal: context.signal })) {
      results.push(item);
      if (limit !== undefined && results.length >= limit) break;
    }
    context.print({ results }, () => {
      const teamShape = results.length > 0 && !("owner" in (results[0] ?? {}));
      const columns = teamShape ? ["id", "name", "visibility", "created", "version"] : ["id", "name", "visibility", "owner", "team", "version"];
      return formatObjects(columns, results as unknown as Record<string, unknown>[]);
    });
  },
};

/** The record with a `license` line after its name: the SPDX id and its page, or the URL. */
function withLicense(record: object): object {
  const given = (record as { properties?: { license?: unknown } }).properties?.license;
  if (typeof given !== "string" || given.trim() === "") return record;
  const id = spdxLicense(given);
  const license = id !== undefined ? `${id}  ${spdxUrl(id)}` : given;
  return Object.fromEntries(Object.entries(record).flatMap(([key, value]) => (key === "name" ? [[key, value], ["license", license]] : [[key, value]])));
}

export const get: Command = {
  name: "get",
  synopsis: "get ID [VERSION]",
  summary: "show a dataset's record (latest version, or VERSION)",
  example: "pubset get <id> --json",
  options: {},
  async run(context, parsed) {
    const [id = "", version] = positionals(parsed, ["ID", "VERSION"], 1);
    const record = await context.client().get(id, version, { signal: context.signal });
    context.print(record, () => formatRecord(withLicense(record)));
  },
};

export const versions: Command = {
  name: "versions",
  synopsis: "versions ID",
  summary: "list a dataset's versions, newest first",
  example: "pubset versions <id>",
  options: {},
  async run(context, parsed) {
    const [id = ""] = positionals(parsed, ["ID"], 1);
    const results: VersionSummary[] = [];
    for await (const version of context.client().versions(id, { signal: context.signal })) results.push(version);
    context.print({ results }, () =>
      formatTable(
        ["VERSION", "CREATED", "ROWS", "SIZE", "COLUMNS"],
        results.map((v) => [v.version, v.created, String(v.rows), formatBytes(v.bytes), String(v.columns.length)]),
      ),
    );
  },
};

export const schema: Command = {
  name: "schema",
  synopsis: "schema ID [VERSION]",
  summary: "print the type of each column (the version's Table Schema)",
  example: "pubset schema <id> --json > schema.json   # edit, then: pubset update <id> --schema schema.json",
  details: ["--json prints the Table Schema itself, which `--schema FILE` accepts back"],
  options: {},
  async run(context, parsed) {
    const [id = "", version] = positionals(parsed, ["ID", "VERSION"], 1);
    const table = await context.client().schema(id, version, { signal: context.signal });
    context.print(table, () => {
      const options = (field: SchemaField) =>
        [
          field.format && field.format !== "default" ? `format ${field.format}` : "",
          field.decimalChar ? `decimalChar ${JSON.stringify(field.decimalChar)}` : "",
          field.groupChar ? `groupChar ${JSON.stringify(field.groupChar)}` : "",
          field.trueValues ? `true ${field.trueValues.join("|")}` : "",
          field.falseValues ? `false ${field.falseValues.join("|")}` : "",
          field.constraints?.required ? "required" : "",
        ].filter((text) => text !== "").join(", ");
      return formatTable(["COLUMN", "TYPE", "OPTIONS"], table.fields.map((field) => [field.name, field.type, options(field)]));
    });
    if (!context.json) context.note(`missing values: ${table.missingValues.map((value) => JSON.stringify(value)).join(", ")}`);
  },
};

export const rows: Command = {
  name: "rows",
  synopsis: "rows ID [VERSION] [--where EXPR] [--columns A,B] [--order C,-D] [--offset N] [--limit N] [--csv]",
  summary: "print data rows as a table, without downloading the file; filter, choose and sort them",
  example: "pubset rows <id> --where \"state = 'NY'\" --columns city,population --order -population",
  details: [
    ...QUERY_DETAILS,
    "                  (--columns also takes 1-based numbers: --columns 1,3)",
    "--offset N        first row of the answer, 0-based (default 0)",
    "--limit N         rows to fetch (default: the server's, 100)",
    "--csv             the rows as CSV with a header line, every column (or those of --columns)",
    "on a terminal the table fits its width: long cells are cut and the columns that do not fit are named",
  ],
  options: { ...QUERY_OPTIONS, offset: { type: "string" }, limit: { type: "string" }, csv: { type: "boolean" } },
  async run(context, parsed) {
    const [id = "", version] = positionals(parsed, ["ID", "VERSION"], 1);
    const offset = integerOption(parsed.values, "offset", 0);
    const limit = integerOption(parsed.values, "limit", 1);
    const csv = flag(parsed.values, "csv");
    if (csv && context.json) throw new UsageError("--csv and --json exclude each other");
    // Names go to the server with the question; a list with a column number picks from the
    // answer's columns here.
    const choice = stringOption(parsed.values, "columns");
    const byNumber = choice !== undefined && choice.split(",").some((item) => /^\s*\d+\s*$/.test(item));
    const query = rowsQuery(parsed.values);
    if (byNumber) delete query.columns;
    const page = await context.client().rows(id, { version, offset, limit, ...query, signal: context.signal });
    const picked = byNumber ? chosenColumns(choice, page.columns) : page.columns.map((_, i) => i);
    const columns = picked.map((i) => page.columns[i] ?? "");
    const rows = page.rows.map((row) => picked.map((i) => row[i]));
    if (csv) {
      context.io.stdout.write(csvText(columns, rows));
      return;
    }
    const out = context.io.stdout as NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
    // A pipe gets every column (scripts want --csv or --json); a terminal what fits its width.
    const fitted = out.isTTY === true ? fitTable(columns, rows, out.columns ?? 80) : { text: formatTable(columns, rows), hidden: [] };
    context.print(byNumber ? { ...page, columns, rows } : page, () => fitted.text);
    if (!context.json && fitted.hidden.length > 0) {
      const n = fitted.hidden.length;
      context.note(`${n} more column${n === 1 ? "" : "s"} not shown: ${fitted.hidden.join(", ")} (--columns to choose, --csv or --json for all)`);
    }
    if (!context.json) {
      const last = page.offset + page.rows.length;
      const of = query.where !== undefined ? `${page.matched}${page.partial ? " or more" : ""} matching rows (of ${page.total})` : String(page.total);
      context.note(page.rows.length === 0 ? `no rows at offset ${page.offset} of ${of}` : `rows ${page.offset + 1}-${last} of ${of}`);
      if (page.partial) context.note("the server's scan budget ran out before every row was read; `pubset export` reads them all");
    }
  },
};
