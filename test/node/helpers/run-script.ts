// Runs one of the operator scripts (scripts/*.ts) the way `npm run` does, with the Node that
// runs the tests (v24, which strips types), and collects its output and exit code.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

export const PROJECT_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export interface ScriptResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runScript(script: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<ScriptResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [`scripts/${script}`, ...args],
      { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 128;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
