// Reading the README and docs/ as the tests that keep them honest need: sections, shell blocks
// (and whether one is marked illustrative), headings as GitHub anchors, and relative links.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "./run-script.ts";

/** A Markdown file of the checkout by its path from the root, e.g. `docs/api.md`. */
export function readDoc(path: string): string {
  return readFileSync(join(PROJECT_ROOT, path), "utf8");
}

/** README.md and every `docs/*.md`, as paths from the root. */
export function documentationFiles(): string[] {
  const docs = readdirSync(join(PROJECT_ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", ...docs];
}

/** The text of a `## Title` section, up to the next `## `. */
export function section(text: string, title: string, file = "README.md"): string {
  const start = text.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`${file} has no "## ${title}" section`);
  const end = text.indexOf("\n## ", start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

export interface ShellBlock {
  /** The commands: one per line, `\`-continued lines joined, comments and blank lines left out. */
  commands: string[];
  /** Marked `<!-- illustrative: why -->` on the line before its fence: not run by the tests. */
  illustrative: boolean;
}

/** The ```sh blocks of a text, in order. */
export function shellBlocks(text: string): ShellBlock[] {
  const blocks: ShellBlock[] = [];
  for (const block of text.matchAll(/(^|\n)((?:<!--[^\n]*-->\n)?)```sh\n([\s\S]*?)```/g)) {
    const joined = (block[3] ?? "").replace(/\\\n\s*/g, "");
    const commands = joined
      .split("\n")
      .map((line) => line.trim())
      .filter((command) => command !== "" && !command.startsWith("#"));
    blocks.push({ commands, illustrative: /^<!-- illustrative: \S/.test(block[2] ?? "") });
  }
  return blocks;
}

/** The commands of a text's runnable (not illustrative) shell blocks, in order. */
export function runnableCommands(text: string): string[] {
  return shellBlocks(text).flatMap((block) => (block.illustrative ? [] : block.commands));
}

/** The text without fenced code blocks and inline code, where nothing is a heading or a link. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function anchor(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a Markdown text's headings; a repeated heading gets `-1`, `-2`… as on GitHub. */
export function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of text.replace(/^```[\s\S]*?^```/gm, "").matchAll(/^#{1,6} (.+)$/gm)) {
    const base = anchor(match[1] ?? "");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

/** Relative link targets (`path`, `path#anchor`, `#anchor`) of a Markdown text's prose. */
export function relativeLinks(text: string): string[] {
  const links: string[] = [];
  for (const match of prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1] ?? "";
    if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push(target);
  }
  return links;
}
