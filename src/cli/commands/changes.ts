// `pubset changes` follows the change feed and `pubset webhooks …` manages the team's webhooks
// (docs/changes.md). `changes --follow` long-polls until interrupted, one line per event.
import type { ChangeEvent } from "../../client/index.ts";
import { flag, integerOption, positionals, stringOption } from "../args.ts";
import { UsageError } from "../cli-error.ts";
import type { Command } from "../command.ts";
import { formatObjects, formatRecord, formatTable } from "../output.ts";

const WAIT_SECONDS = 25;

function eventLine(event: ChangeEvent): string {
  return [event.occurred, event.type, event.id, event.version ?? "-", event.team ?? "-", event.cursor].join("  ") + "\n";
}

export const changes: Command = {
  name: "changes",
  synopsis: "changes [--since CURSOR|now] [--follow] [--limit N]",
  summary: "print the change feed's events, oldest first (signed: your team's; else the public ones)",
  example: "pubset changes --since now --follow --json",
  details: [
    "--since C     after the event with cursor C (the last column), or `now`; default: from the first event",
    "--follow      keep waiting for new events until interrupted (Ctrl-C)",
    "--limit N     stop after N events",
    "--json        one JSON object per event, per line",
  ],
  options: { since: { type: "string" }, follow: { type: "boolean" }, limit: { type: "string" } },
  async run(context, parsed) {
    positionals(parsed, [], 0);
    const limit = integerOption(parsed.values, "limit", 1);
    const follow = flag(parsed.values, "follow");
    let printed = 0;
    try {
      for await (const event of context.client().changes({ since: stringOption(parsed.values, "since"), wait: follow ? WAIT_SECONDS : 0, signal: context.signal })) {
        context.print(event, () => eventLine(event));
        if (limit !== undefined && ++printed >= limit) break;
      }
    } catch (error: unknown) {
      // Ctrl-C while following is the way to stop: not a failure.
      if (follow && context.signal?.aborted) return;
      throw error;
    }
  },
};

/** A webhook as a person reads it: no event filter is every event; no named dataset is the team's own only. */
function readable<T extends object>(webhook: T): Record<string, unknown> {
  const record = { ...webhook } as Record<string, unknown>;
  if (Array.isArray(record.events) && record.events.length === 0) record.events = "all";
  if (Array.isArray(record.datasets) && record.datasets.length === 0) record.datasets = "-";
  return record;
}

const ACTIONS = ["add", "ls", "rm", "rotate", "deliveries", "enable"] as const;

export const webhooks: Command = {
  name: "webhooks",
  synopsis: "webhooks add URL [--events T,T] [--dataset ID]… | ls | rm ID | rotate ID | deliveries ID | enable ID",
  summary: "manage your team's webhooks: signed deliveries of the change feed's events",
  example: "pubset webhooks add https://hooks.example.com/pubset --events dataset.appended,dataset.published",
  details: [
    "add URL          a new webhook; prints its secret (shown only once)",
    "  --events T,T   only these event types (default: all)",
    "  --dataset ID   also another team's public dataset ID (repeatable)",
    "ls               the team's webhooks",
    "rm ID            delete one",
    "rotate ID        a new secret; the old one signs beside it for 24 h",
    "deliveries ID    its recent deliveries, newest first",
    "enable ID        enable a disabled one again; it resumes from the first undelivered event",
  ],
  options: { events: { type: "string" }, dataset: { type: "string", multiple: true } },
  async run(context, parsed) {
    const [action = "", target] = positionals(parsed, ["ACTION", "URL or ID"], 1);
    if (!(ACTIONS as readonly string[]).includes(action)) throw new UsageError(`unknown action ${JSON.stringify(action)}; one of ${ACTIONS.join(", ")}`);
    if (action !== "ls" && target === undefined) throw new UsageError(`webhooks ${action} needs ${action === "add" ? "a URL" : "an ID"}`);
    const calls = context.client().webhooks;
    const signal = context.signal;
    const id = target ?? "";
    switch (action) {
      case "add": {
        const events = stringOption(parsed.values, "events")?.split(",").map((t) => t.trim()).filter((t) => t !== "");
        const raw = parsed.values.dataset;
        const datasets = Array.isArray(raw) ? raw.filter((d): d is string => typeof d === "string") : [];
        const created = await calls.create({ url: id, ...(events ? { events } : {}), ...(datasets.length > 0 ? { datasets } : {}) }, signal);
        context.print(created, () => formatRecord(readable(created)) + "Keep the secret: it is not shown again. Verify deliveries with it (docs/changes.md).\n");
        return;
      }
      case "ls": {
        const results = await calls.list(signal);
        context.print({ results }, () => formatObjects(["id", "url", "enabled", "events", "datasets", "created"], results.map(readable)));
        return;
      }
      case "rm":
        await calls.delete(id, signal);
        context.print({ deleted: id }, () => `deleted webhook ${id}\n`);
        return;
      case "rotate": {
        const rotated = await calls.rotateSecret(id, signal);
        context.print(rotated, () => formatRecord(readable(rotated)));
        return;
      }
      case "deliveries": {
        const results = await calls.deliveries(id, { signal });
        context.print({ results }, () =>
          formatTable(
            ["CURSOR", "TYPE", "STATUS", "ATTEMPTS", "CODE", "NEXT RETRY"],
            results.map((d) => [d.cursor, d.type ?? "-", d.status, String(d.attempts), d.response_code === null ? "-" : String(d.response_code), d.next_retry ?? "-"]),
          ),
        );
        return;
      }
      case "enable": {
        const enabled = await calls.enable(id, signal);
        context.print(enabled, () => formatRecord(readable(enabled)));
        return;
      }
    }
  },
};
