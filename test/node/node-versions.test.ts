// One Node story (issue 13): the README, package.json `engines` and `.ci/run` name the same
// minimum Node for running npm, the README names the Node the project brings for its scripts,
// and the scripts really run on it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "./helpers/run-script.ts";

const read = (path: string) => readFileSync(join(PROJECT_ROOT, path), "utf8");
const pkg = JSON.parse(read("package.json")) as { engines: { node: string }; devDependencies: Record<string, string>; allowScripts: Record<string, boolean> };
const readme = read("README.md");

describe("the Node versions the project states", () => {
  it("README, engines and .ci/run agree on the minimum", () => {
    const engines = /^>=(\d+)$/.exec(pkg.engines.node)?.[1];
    const readmeMin = /Needs Node ≥ (\d+) and npm/.exec(readme)?.[1];
    const ciMin = /^MIN_NODE_MAJOR=(\d+)$/m.exec(read(".ci/run"))?.[1];
    expect(engines).toBeDefined();
    expect([readmeMin, ciMin]).toEqual([engines, engines]);
  });

  it("the README's project Node is the `node` devDependency, and npm scripts run on it", () => {
    const major = /^\^?(\d+)\./.exec(pkg.devDependencies.node ?? "")?.[1];
    expect(readme).toContain(`brings its own Node ${major} (the \`node\` devDependency)`);
    // This test runs under `npm test` → vitest, an npm script.
    expect(process.versions.node.split(".")[0]).toBe(major);
    expect(pkg.allowScripts).toMatchObject({ node: true });
  });
});
