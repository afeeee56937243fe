// The write commands: create, append, update, rm. Uploads are gzipped client-side and show a
// progress bar on a terminal.
import type { Collection, ProgressCallback } from "../../client/index.ts";
import { flag, positionals, stringOption, type OptionValues } from "../args.ts";
import { EXIT_USAGE, UsageError } from "../cli-error.ts";
import { basicCollection, COLLECTION_DETAILS, COLLECTION_OPTIONS, propertyChanges } from "../collection-options.ts";
import type { Command } from "../command.ts";
import type { CommandContext } from "../context.ts";
import { formatRecord } from "../output.ts";
import { resumeLine } from "../progress-bar.ts";
import { ask } from "../prompt.ts";
import { uploadInput } from "../upload-input.ts";

/** `rm` answered "no": nothing was done, as with a usage error. */
const EXIT_DECLINED = EXIT_USAGE;

/** `--idempotency-key`: rerunning an interrupted write with its key cannot apply it twice. */
/** `--resumable-above`: where uploads switch to resumable chunks (tests use small files). */
const IDEMPOTENCY_OPTION = { "idempotency-key": { type: "string" }, "resumable-above": { type: "string" } } as const;
const IDEMPOTENCY_DETAIL = "--idempotency-key K  send this Idempotency-Key (default: a fresh one); an interrupted write prints its own";
const RESUMABLE_DETAIL = "--resumable-above N  files over N bytes go as a resumable upload, in chunks (default 64 MiB)";

interface WriteCall {
  onProgress: ProgressCallback;
  signal: AbortSignal | undefined;
  idempotencyKey: string;
  resumableThreshold?: number;
}

function resumableAbove(values: OptionValues): number | undefined {
  const raw = stringOption(values, "resumable-above");
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new UsageError("--resumable-above takes a byte count");
  return Number(raw);
}

/** Runs one upload with a progress bar on a terminal, the interrupt tracker told every step. */
async function trackedWrite<T>(
  context: CommandContext,
  how: { check: string; replayable: boolean },
  values: OptionValues,
  call: (options: WriteCall) => Promise<T>,
): Promise<T> {
  const idempotencyKey = stringOption(values, "idempotency-key") ?? crypto.randomUUID();
  const bar = context.progress();
  const rerun = how.replayable ? context.rerunWith("--idempotency-key", idempotencyKey) : undefined;
  context.tracker.begin({ check: how.check, rerun });
  let announced = false;
  const onProgress: ProgressCallback = (progress) => {
    context.tracker.progress(progress);
    // Said on stderr whether or not it is a terminal; the bar then goes on from there.
    if (progress.resumedFrom !== undefined && !announced) {
      announced = true;
      const line = resumeLine(progress.resumedFrom, progress.total);
      if (bar) bar.note(line);
      else context.note(line);
    }
    bar?.onProgress(progress);
  };
  try {
    const resumableThreshold = resumableAbove(values);
    return await call({ onProgress, signal: context.signal, idempotencyKey, ...(resumableThreshold === undefined ? {} : { resumableThreshold }) });
  } finally {
    bar?.done();
    context.tracker.end();
  }
}

export const create: Command = {
  name: "create",
  synopsis: "create FILE --name N [--public] [--description D] [--key-words a,b] [--contact C] [--schema FILE]",
  summary: "create a dataset from a CSV file (`-` reads stdin; *.gz is sent as is)",
  example: "pubset create cities.csv --name Cities --public --key-words geo,population",
  details: [...COLLECTION_DETAILS, IDEMPOTENCY_DETAIL, RESUMABLE_DETAIL],
  options: { ...COLLECTION_OPTIONS, ...IDEMPOTENCY_OPTION },
  async run(context, parsed) {
    const [file = ""] = positionals(parsed, ["FILE"], 1);
    const collection = basicCollection(parsed.values);
    if (collection.name === undefined) throw new UsageError("create needs --name");
    const properties = propertyChanges(parsed.values);
    const input = uploadInput(file, context.io.stdin);
    const client = context.client();
    const created = await trackedWrite(context, { check: `${context.self} ls --limit 5`, replayable: true }, parsed.values, (options) =>
      client.create({ ...collection, name: collection.name ?? "", ...(properties ? { properties } : {}) }, input, options),
    );
    context.print(created, () => formatRecord(created));
  },
};

export const append: Command = {
  name: "append",
  synopsis: "append ID FILE",
  summary: "append data rows (no header line) as a new version",
  example: "pubset append <id> more.csv",
  options: { "if-match": { type: "string" }, ...IDEMPOTENCY_OPTION },
  details: ["--if-match VERSION  fail (412) unless VERSION is still the latest", IDEMPOTENCY_DETAIL, RESUMABLE_DETAIL],
  async run(context, parsed) {
    const [id = "", file = ""] = positionals(parsed, ["ID", "FILE"], 2);
    const input = uploadInput(file, context.io.stdin);
    const client = context.client();
    const ifMatch = stringOption(parsed.values, "if-match");
    const appended = await trackedWrite(context, { check: `${context.self} versions ${id}`, replayable: true }, parsed.values, (options) => client.append(id, input, { ...options, ifMatch }));
    context.print(appended, () => formatRecord(appended));
  },
};

/**
 * docs/api.md#who-sees-what: after a publishing update, the versions a stranger still cannot read are the drafts,
 * written while the dataset was private. Found by listing the versions signed and unsigned.
 */
async function draftsLeftPrivate(context: CommandContext, id: string): Promise<string[]> {
  const published = new Set<string>();
  for await (const v of context.anonymousClient().versions(id)) published.add(v.version);
  const drafts: string[] = [];
  for await (const v of context.client().versions(id)) if (!published.has(v.version)) drafts.push(v.version);
  return drafts;
}

export const update: Command = {
  name: "update",
  synopsis: "update ID [--name N] [--public [--with-history]|--private] [--description D] [--key-words a,b] [--contact C] [--schema FILE] [FILE]",
  summary: "change metadata and/or replace the content (FILE's first row is the new header)",
  example: "pubset update <id> --public --description \"Large cities\"",
  details: [
    ...COLLECTION_DETAILS,
    "--with-history      with --public: also publish the versions written while private (drafts),",
    "                    which otherwise stay readable by the team only",
    "property flags change only the properties named; the others are kept",
    IDEMPOTENCY_DETAIL,
    RESUMABLE_DETAIL,
  ],
  options: { ...COLLECTION_OPTIONS, "with-history": { type: "boolean" }, ...IDEMPOTENCY_OPTION },
  async run(context, parsed) {
    const [id = "", file] = positionals(parsed, ["ID", "FILE"], 1);
    const collection: Collection = basicCollection(parsed.values);
    const withHistory = flag(parsed.values, "with-history");
    if (withHistory && collection.visibility !== "public") throw new UsageError("--with-history goes with --public");
    if (withHistory) collection.history = "public";
    const changes = propertyChanges(parsed.values);
    if (Object.keys(collection).length === 0 && changes === undefined && file === undefined) {
      throw new UsageError("update needs at least one of --name, --public, --private, --description, --key-words, --contact, --schema, FILE");
    }
    const client = context.client();
    let ifMatch: string | undefined;
    if (changes !== undefined) {
      // PUT replaces `properties` as a whole (docs/api.md#writes): merge into the current ones, and make
      // the write conditional on that version so a concurrent change is not lost.
      const current = await client.get(id, undefined, { signal: context.signal });
      collection.properties = { ...current.properties, ...changes };
      ifMatch = current.version;
    }
    const content = file === undefined ? undefined : uploadInput(file, context.io.stdin);
    const hasCollection = Object.keys(collection).length > 0;
    // A rerun merges the property flags into whatever is current by then: not the same request.
    const updated = await trackedWrite(context, { check: `${context.self} versions ${id}`, replayable: changes === undefined }, parsed.values, (options) =>
      client.update(id, { collection: hasCollection ? collection : undefined, content }, { ...options, ifMatch }),
    );
    context.print(updated, () => formatRecord(updated));
    if (collection.visibility === "public" && !withHistory) {
      const drafts = await draftsLeftPrivate(context, id);
      if (drafts.length > 0) {
        context.note(
          `pubset: ${drafts.length} earlier version${drafts.length === 1 ? "" : "s"} written while private stay${drafts.length === 1 ? "s" : ""} readable by your team only:\n` +
            drafts.map((v) => `  ${v}\n`).join("") +
            `To publish ${drafts.length === 1 ? "it" : "them"} too: ${context.self} update ${id} --public --with-history`,
        );
      }
    }
  },
};

export const rm: Command = {
  name: "rm",
  synopsis: "rm ID [--yes]",
  summary: "delete a dataset and every version of it (asks first on a terminal)",
  details: ["--yes         do not ask; without a terminal on stdin, rm never asks"],
  example: "pubset rm <id> --yes",
  options: { yes: { type: "boolean", short: "y" } },
  async run(context, parsed) {
    const [id = ""] = positionals(parsed, ["ID"], 1);
    const client = context.client();
    if (context.io.stdin.isTTY === true && !flag(parsed.values, "yes")) {
      const record = await client.get(id, undefined, { signal: context.signal });
      const answer = await ask(context.io.stdin, context.io.stderr, `Delete "${record.name}" (${id}) and every version of it? This cannot be undone. [y/N] `, context.signal);
      if (!/^y(es)?$/i.test(answer)) {
        context.note("pubset: nothing deleted");
        if (context.json) context.print({ id, deleted: false }, () => "");
        return EXIT_DECLINED;
      }
    }
    await client.delete(id, { signal: context.signal });
    context.print({ id, deleted: true }, () => `deleted ${id}\n`);
  },
};
