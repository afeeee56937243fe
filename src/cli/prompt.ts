// Interactive questions for `pubset login` on a terminal; the secret is read without echo.
import { createInterface } from "node:readline/promises";

export interface TerminalInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

/** One answered line; "" when input ends first (Ctrl-D); an aborted `signal` (Ctrl-C, see
 * main.ts) ends the wait with an error. */
export async function ask(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, question: string, signal?: AbortSignal): Promise<string> {
  const rl = createInterface({ input, output, terminal: false });
  const closed = new Promise<string>((resolve) => rl.once("close", () => resolve("")));
  try {
    output.write(question);
    return (await Promise.race([rl.question("", { signal: signal ?? new AbortController().signal }), closed])).trim();
  } finally {
    rl.close();
  }
}

/** Reads one line with echo off (raw mode): Enter ends it, Backspace edits, Ctrl-C aborts. */
export function askHidden(input: TerminalInput, output: NodeJS.WritableStream, question: string): Promise<string> {
  output.write(question);
  return new Promise((resolve, reject) => {
    let answer = "";
    input.setRawMode?.(true);
    input.resume();
    const finish = (error: Error | null) => {
      input.setRawMode?.(false);
      input.pause();
      input.removeListener("data", onData);
      output.write("\n");
      if (error) reject(error);
      else resolve(answer.trim());
    };
    const onData = (data: Buffer | string) => {
      for (const char of data.toString()) {
        if (char === "\r" || char === "\n") return finish(null);
        if (char === "\u0003") return finish(new Error("cancelled"));
        if (char === "\u007f" || char === "\b") answer = answer.slice(0, -1);
        else answer += char;
      }
    };
    input.on("data", onData);
  });
}
