// The Markdown subset the OpenAPI descriptions use, rendered as hono/jsx nodes for the plain
// /docs page: `#` headings, paragraphs, `1.` and `-` lists (hard-wrapped items continue on
// indented lines), fenced code blocks and `code` spans. Everything else is text, and every
// piece of text goes through JSX, which escapes it: no description can inject markup.
import type { Child } from "hono/jsx";

type Block =
  | { kind: "heading"; level: number; text: string }
  | { kind: "paragraph"; text: string }
  | { kind: "list"; ordered: boolean; items: string[] }
  | { kind: "code"; text: string };

const HEADING = /^(#{1,6})\s+(.*)$/;
const ORDERED_ITEM = /^\d+[.)]\s+(.*)$/;
const BULLET_ITEM = /^[-*+]\s+(.*)$/;
const FENCE = /^(```|~~~)/;

/** Splits Markdown source into blocks (CommonMark's block structure, for the subset above). */
export function parseBlocks(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    const trimmed = line.trim();
    if (trimmed === "") {
      i++;
      continue;
    }
    const fence = FENCE.exec(trimmed);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? "").trim().startsWith(fence[1] ?? "```")) body.push(lines[i++] ?? "");
      i++;
      blocks.push({ kind: "code", text: body.join("\n") });
      continue;
    }
    const heading = HEADING.exec(trimmed);
    if (heading) {
      blocks.push({ kind: "heading", level: heading[1]?.length ?? 1, text: (heading[2] ?? "").replace(/\s+#+\s*$/, "") });
      i++;
      continue;
    }
    const ordered = ORDERED_ITEM.test(trimmed);
    if (ordered || BULLET_ITEM.test(trimmed)) {
      const marker = ordered ? ORDERED_ITEM : BULLET_ITEM;
      const items: string[] = [];
      while (i < lines.length) {
        const current = lines[i] ?? "";
        const item = marker.exec(current.trim());
        if (item && !/^\s{2,}/.test(current)) {
          items.push(item[1] ?? "");
        } else if (current.trim() !== "" && /^\s/.test(current) && items.length > 0) {
          items[items.length - 1] += " " + current.trim();
        } else {
          break;
        }
        i++;
      }
      blocks.push({ kind: "list", ordered, items });
      continue;
    }
    const text: string[] = [];
    while (i < lines.length) {
      const current = (lines[i] ?? "").trim();
      if (current === "" || HEADING.test(current) || FENCE.test(current) || ORDERED_ITEM.test(current) || BULLET_ITEM.test(current)) break;
      text.push(current);
      i++;
    }
    blocks.push({ kind: "paragraph", text: text.join(" ") });
  }
  return blocks;
}

/** Inline Markdown: `code` spans; the rest is text. An unclosed backtick stays a backtick. */
export function Inline({ value }: { value: string }) {
  const pieces: Child[] = [];
  let rest = value;
  for (;;) {
    const match = /`([^`]+)`/.exec(rest);
    if (!match) break;
    pieces.push(rest.slice(0, match.index), <code>{match[1]}</code>);
    rest = rest.slice(match.index + match[0].length);
  }
  pieces.push(rest);
  return <>{pieces}</>;
}

/** Markdown as HTML; headings start at `baseLevel` (an `#` heading becomes that level). */
export function Markdown({ source, baseLevel = 2 }: { source: string; baseLevel?: number }) {
  return (
    <>
      {parseBlocks(source).map((block) => {
        switch (block.kind) {
          case "heading": {
            const level = Math.min(6, Math.max(baseLevel, baseLevel + block.level - 2));
            const Tag = `h${level}` as "h2";
            return (
              <Tag>
                <Inline value={block.text} />
              </Tag>
            );
          }
          case "paragraph":
            return (
              <p>
                <Inline value={block.text} />
              </p>
            );
          case "code":
            return (
              <pre>
                <code>{block.text}</code>
              </pre>
            );
          case "list": {
            const items = block.items.map((item) => (
              <li>
                <Inline value={item} />
              </li>
            ));
            return block.ordered ? <ol>{items}</ol> : <ul>{items}</ul>;
          }
        }
      })}
    </>
  );
}
