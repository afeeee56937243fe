// The README stays a few screens long and every page links where it says: each relative link in
// README.md and docs/*.md names a file of the checkout and, with a #anchor into a Markdown file,
// one of its headings (as GitHub writes anchors), and every path under src/, scripts/, test/,
// migrations/ or examples/ that a page names exists. Reference lives in docs/, indexed by
// docs/README.md; the README's shell blocks outside the sections that run are marked.
import { existsSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { anchors, documentationFiles, readDoc, relativeLinks, section, shellBlocks } from "./helpers/markdown.ts";
import { PROJECT_ROOT } from "./helpers/run-script.ts";

const README_MAX_LINES = 300;
/** Paths the docs name that exist only once something ran. */
const RUNTIME_PATHS = ["test/browser/screenshots"];

describe("README and docs/", () => {
  it(`README.md is at most ${README_MAX_LINES} lines`, () => {
    const lines = readDoc("README.md").split("\n").length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it.each(documentationFiles())("every relative link in %s resolves", (file) => {
    const broken: string[] = [];
    for (const link of relativeLinks(readDoc(file))) {
      const [path = "", hash] = link.split("#", 2);
      const target = path === "" ? file : normalize(join(dirname(file), decodeURIComponent(path)));
      if (target.startsWith("..") || !existsSync(join(PROJECT_ROOT, target))) {
        broken.push(`${link}: no file ${target}`);
        continue;
      }
      if (hash !== undefined && target.endsWith(".md") && !anchors(readDoc(target)).has(hash)) {
        broken.push(`${link}: ${target} has no heading with the anchor #${hash}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it.each(documentationFiles())("every code block in %s is closed", (file) => {
    const fences = readDoc(file).split("\n").filter((line) => line.startsWith("```")).length;
    expect(fences % 2).toBe(0);
  });

  it.each(documentationFiles())("every path of the checkout %s names exists", (file) => {
    const paths = [...readDoc(file).matchAll(/(?<![\w./-])((?:src|scripts|test|migrations|examples)\/[\w./-]*\w)/g)].map((m) => m[1] ?? "");
    expect(paths.filter((path) => !RUNTIME_PATHS.includes(path) && !existsSync(join(PROJECT_ROOT, path)))).toEqual([]);
  });

  it("docs/README.md links every page of docs/", () => {
    const linked = new Set(relativeLinks(readDoc("docs/README.md")).map((link) => normalize(join("docs", link.split("#")[0] ?? ""))));
    const pages = documentationFiles().filter((file) => file.startsWith("docs/") && file !== "docs/README.md");
    expect(pages.filter((page) => !linked.has(page))).toEqual([]);
  });

  it("nothing names the storage protocol's old place", () => {
    for (const file of documentationFiles()) expect(readDoc(file), file).not.toContain("src/storage/README.md");
  });

  it("the README's shell blocks outside Quick start and CLI are marked illustrative", () => {
    const readme = readDoc("README.md");
    const run = [section(readme, "Quick start"), section(readme, "CLI")].flatMap((text) => shellBlocks(text));
    const unmarked = shellBlocks(readme).filter((block) => !block.illustrative);
    expect(unmarked.length).toBeGreaterThan(0);
    expect(unmarked.map((block) => block.commands)).toEqual(run.filter((block) => !block.illustrative).map((block) => block.commands));
  });
});
