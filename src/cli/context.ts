// What every command gets: the output streams, --json, the resolved configuration and a client
// built from it, a progress bar when stderr is a terminal, and the interrupt signal and tracker.
import { PubsetClient } from "../client/index.ts";
import { stringOption, flag, type OptionValues } from "./args.ts";
import { bookmarkFile, readBookmark, saveBookmark } from "./bookmark-file.ts";
import { resolveConfig, type ResolvedConfig } from "./config.ts";
import { fileSpool } from "./file-spool.ts";
import { invokedAs } from "./invocation.ts";
import { WriteTracker } from "./interrupt.ts";
import { progressBar, type ProgressTarget } from "./progress-bar.ts";

export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & ProgressTarget;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Aborted when the user interrupts (main.ts); absent in tests that never interrupt. */
  signal?: AbortSignal;
  /** Told what a write is doing, so an interrupt can say whether it landed. */
  tracker?: WriteTracker;
}

export class CommandContext {
  readonly io: CliIo;
  readonly json: boolean;
  readonly signal: AbortSignal | undefined;
  readonly tracker: WriteTracker;
  /** The command line as typed after `pubset`, for "run this again" advice. */
  readonly argv: string[];
  /** `pubset`, `npx pubset` or `npm run cli --`: how the user ran us (invocation.ts). */
  readonly self: string;
  private readonly urlFlag: string | undefined;
  private resolved: ResolvedConfig | undefined;
  private readonly clients: PubsetClient[] = [];

  constructor(io: CliIo, values: OptionValues, argv: string[] = []) {
    this.io = io;
    this.argv = argv;
    this.self = invokedAs(io.env);
    this.json = flag(values, "json");
    this.signal = io.signal;
    this.tracker = io.tracker ?? new WriteTracker();
    this.urlFlag = stringOption(values, "url");
  }

  get config(): ResolvedConfig {
    this.resolved ??= resolveConfig(this.io.env, this.urlFlag, (message) => this.io.stderr.write(`pubset: warning: ${message}\n`));
    return this.resolved;
  }

  client(): PubsetClient {
    const { url, key } = this.config;
    const client = new PubsetClient({
      url,
      key,
      spool: () => fileSpool(this.signal),
      bookmark: readBookmark(bookmarkFile(this.io.env), url.replace(/\/+$/, "")),
    });
    this.clients.push(client);
    return client;
  }

  /** Stores the newest D1 bookmark the command's clients saw, for the next invocation. */
  saveBookmarks(): void {
    for (const client of this.clients) saveBookmark(bookmarkFile(this.io.env), client.baseUrl, client.bookmark);
  }

  /** This command line again with `option value` set (replacing the option if it was given). */
  rerunWith(option: string, value: string): string {
    const args: string[] = [];
    for (let i = 0; i < this.argv.length; i++) {
      const arg = this.argv[i] ?? "";
      if (arg === option) i++;
      else if (!arg.startsWith(`${option}=`)) args.push(arg);
    }
    return [this.self, [...args, option, value].map(shellQuote).join(" ")].join(" ");
  }

  /** A client that signs nothing: it sees what a stranger sees. */
  anonymousClient(): PubsetClient {
    return new PubsetClient({ url: this.config.url, spool: fileSpool });
  }

  /** A progress bar for one transfer, or undefined when stderr is not a terminal. */
  progress() {
    return progressBar(this.io.stderr, this.signal);
  }

  /** With --json the value as one JSON document; otherwise the human text. */
  print(value: unknown, human: () => string): void {
    this.io.stdout.write(this.json ? `${JSON.stringify(value)}\n` : human());
  }

  note(message: string): void {
    this.io.stderr.write(`${message}\n`);
  }
}

/** A word as a POSIX shell reads it back: bare when safe, else in single quotes. */
function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}
