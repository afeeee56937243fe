// How the user started pubset, so every command we suggest (finish:, check:, `login`, `--help`)
// can be pasted back as is. npm tells the processes it starts: npm_command is `exec` under npx
// with npm_lifecycle_script naming the command npx ran, `run` under `npm run` with the script's
// name in npm_lifecycle_event. (A pubset that some other npx-started tool runs sees `exec` too,
// but another command in npm_lifecycle_script.)

export function invokedAs(env: NodeJS.ProcessEnv): string {
  if (env.npm_command === "exec" && /^'?pubset'?(\s|$)/.test(env.npm_lifecycle_script ?? "")) return "npx pubset";
  if ((env.npm_command === "run" || env.npm_command === "run-script") && env.npm_lifecycle_event === "cli") return "npm run cli --";
  return "pubset";
}

/** A `pubset …` command line (as the help texts write them) spelt the way the user runs pubset. */
export function asInvoked(self: string, commandLine: string): string {
  return commandLine.replace(/^pubset\b/, self);
}
