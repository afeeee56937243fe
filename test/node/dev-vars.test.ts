// .dev.vars handling: the master key is added when missing, other lines are kept, and an
// existing key is never replaced (keys sealed under it would stop working).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { isMasterKey } from "../../src/auth/key-secrets.ts";
import { ensureMasterKey, readDevVar } from "../../scripts/lib/dev-vars.ts";

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pubset-dev-vars-"));
  file = join(dir, ".dev.vars");
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

it("creates the file with a fresh 32-byte key, then keeps returning it", () => {
  const first = ensureMasterKey(file);
  expect(first.created).toBe(true);
  expect(isMasterKey(first.value)).toBe(true);
  expect(readFileSync(file, "utf8")).toBe(`KEY_ENCRYPTION_KEY=${first.value}\n`);
  expect(ensureMasterKey(file)).toEqual({ value: first.value, created: false });
});

it("appends the key to an existing file without touching its other lines", () => {
  writeFileSync(file, "# local settings\nOTHER=1");
  const { value, created } = ensureMasterKey(file);
  expect(created).toBe(true);
  expect(readFileSync(file, "utf8")).toBe(`# local settings\nOTHER=1\nKEY_ENCRYPTION_KEY=${value}\n`);
});

it("uses an existing key as is", () => {
  writeFileSync(file, 'A=1\nKEY_ENCRYPTION_KEY="abc="\nB=2\n');
  expect(ensureMasterKey(file)).toEqual({ value: "abc=", created: false });
  expect(readFileSync(file, "utf8")).toBe('A=1\nKEY_ENCRYPTION_KEY="abc="\nB=2\n');
});

it("reads dotenv lines the way wrangler does: export prefix, quotes, comments, last wins", () => {
  const text = "export X=one\n# X=commented\nY = 'two words'\nZ=three # note\nX=four\nEMPTY=\n";
  expect(readDevVar(text, "X")).toBe("four");
  expect(readDevVar(text, "Y")).toBe("two words");
  expect(readDevVar(text, "Z")).toBe("three");
  expect(readDevVar(text, "EMPTY")).toBeUndefined();
  expect(readDevVar(text, "MISSING")).toBeUndefined();
});
