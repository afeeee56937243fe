// The Markdown subset of /docs (src/openapi/markdown.tsx): the OpenAPI descriptions' headings,
// lists, code and paragraphs become HTML, and anything else, markup included, stays text.
import { describe, expect, it } from "vitest";
import { Markdown, parseBlocks } from "../src/openapi/markdown.tsx";

async function html(source: string, baseLevel?: number): Promise<string> {
  return String(await Markdown({ source, baseLevel }).toString());
}

describe("Markdown for /docs", () => {
  it("headings, paragraphs joined across hard wraps, and code spans", async () => {
    expect(await html("Intro line one\nline two.\n\n## Signing `hmac`\n\nText.")).toBe(
      "<p>Intro line one line two.</p><h2>Signing <code>hmac</code></h2><p>Text.</p>",
    );
    expect(await html("# Top\n### Deeper", 3)).toBe("<h3>Top</h3><h4>Deeper</h4>");
  });

  it("numbered and bulleted lists, items continued on indented lines", async () => {
    const source = "1. First `a`,\n   still first.\n2. Second.\n\n- one\n- two\n  more two\nafter";
    expect(await html(source)).toBe(
      "<ol><li>First <code>a</code>, still first.</li><li>Second.</li></ol><ul><li>one</li><li>two more two</li></ul><p>after</p>",
    );
  });

  it("fenced code keeps its lines", async () => {
    expect(await html("```sh\ncurl -s x\n  | jq .\n```")).toBe("<pre><code>curl -s x\n  | jq .</code></pre>");
  });

  it("escapes every other character: markup in a description is text", async () => {
    const out = await html('## <img src=x onerror=alert(1)>\n\n<script>alert(1)</script> & `<b>` "q"\n\n- [x](javascript:alert(1))');
    expect(out).not.toContain("<img");
    expect(out).not.toContain("<script");
    expect(out).not.toContain("<b>");
    expect(out).toContain("&lt;script&gt;alert(1)&lt;/script&gt; &amp; <code>&lt;b&gt;</code>");
    expect(out).toContain("<li>[x](javascript:alert(1))</li>");
  });

  it("an unclosed backtick stays a backtick", async () => {
    expect(await html("a `b")).toBe("<p>a `b</p>");
    expect(parseBlocks("\n\n")).toEqual([]);
  });
});
