// What every command gets: the output streams, --json, the resolved configuration and a client
// built from it, and a progress bar when stderr is a terminal.
import { PubsetClient } from "../client/index.ts";
import { stringOption, flag, type OptionValues } from "./args.ts";
import { bookmarkFile, readBookmark, saveBookmark } from "./bookmark-file.ts";
import { resolveConfig, type ResolvedConfig } from "./config.ts";
import { fileSpool } from "./file-spool.ts";
import { progressBar, type ProgressTarget } from "./progress-bar.ts";

export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & ProgressTarget;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

export class CommandContext {
  readonly io: CliIo;
  readonly json: boolean;
  private readonly urlFlag: string | undefined;
  private resolved: ResolvedConfig | undefined;
  private readonly clients: PubsetClient[] = [];

  constructor(io: CliIo, values: OptionValues) {
    this.io = io;
    this.json = flag(values, "json");
    this.urlFlag = stringOption(values, "url");
  }

  get config(): ResolvedConfig {
    this.resolved ??= resolveConfig(this.io.env, this.urlFlag, (message) => this.io.stderr.write(`pubset: warning: ${message}\n`));
    return this.resolved;
  }

  client(): PubsetClient {
    const { url, key } = this.config;
    const client = new PubsetClient({ url, key, spool: fileSpool, bookmark: readBookmark(bookmarkFile(this.io.env), url.replace(/\/+$/, "")) });
    this.clients.push(client);
    return client;
  }

  /** Stores the newest D1 bookmark the command's clients saw, for the next invocation. */
  saveBookmarks(): void {
    for (const client of this.clients) saveBookmark(bookmarkFile(this.io.env), client.baseUrl, client.bookmark);
  }

  /** A client that signs nothing: it sees what a stranger sees. */
  anonymousClient(): PubsetClient {
    return new PubsetClient({ url: this.config.url, spool: fileSpool });
  }

  /** A progress bar for one transfer, or undefined when stderr is not a terminal. */
  progress() {
    return progressBar(this.io.stderr);
  }

  /** With --json the value as one JSON document; otherwise the human text. */
  print(value: unknown, human: () => string): void {
    this.io.stdout.write(this.json ? `${JSON.stringify(value)}\n` : human());
  }

  note(message: string): void {
    this.io.stderr.write(`${message}\n`);
  }
}
