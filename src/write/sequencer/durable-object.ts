// The per-dataset append sequencer (a Durable Object; one instance per dataset id). Appends
// arrive with their rows already in R2; the sequencer commits them one group at a time: every
// append that arrived while the previous group committed goes into the next group, as
// consecutive versions in one D1 batch (queue.ts). So a burst of appenders costs one
// D1 round trip per group instead of compare-and-swap rounds that most of them lose. It does
// nothing else: work after a commit is the appender's to enqueue (src/maintenance/after-commit.ts),
// so nothing the sequencer runs can hold up the next group's answer.
import { DurableObject } from "cloudflare:workers";
import { sessionDatabase } from "../../edge/d1-session.ts";
import { commitAppendGroup, type LatestCache, type QueuedAppend, type QueuedOutcome } from "./queue.ts";

/** A bound on one batch: D1 caps statements and bytes per batch. */
const MAX_GROUP = 32;

interface Waiting {
  append: QueuedAppend;
  settle: (outcome: QueuedOutcome) => void;
}

export class AppendSequencer extends DurableObject<Env> {
  private readonly waiting: Waiting[] = [];
  private draining = false;
  private readonly known: LatestCache = { latest: null };

  async commit(append: QueuedAppend): Promise<QueuedOutcome> {
    const outcome = new Promise<QueuedOutcome>((settle) => this.waiting.push({ append, settle }));
    if (!this.draining) void this.drain();
    return outcome;
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.waiting.length > 0) {
        const group = this.waiting.splice(0, MAX_GROUP);
        let outcomes: QueuedOutcome[];
        try {
          // A session, so each appender learns a bookmark that covers its commit (X-D1-Bookmark).
          const session = this.env.DB.withSession("first-primary");
          outcomes = await commitAppendGroup({ ...this.env, DB: sessionDatabase(session) }, group.map((w) => w.append), this.known);
          const bookmark = session.getBookmark();
          outcomes = outcomes.map((outcome) => (outcome.ok ? { ...outcome, bookmark } : outcome));
        } catch (error: unknown) {
          console.error(JSON.stringify({ event: "append_group_failed", error: String(error) }));
          outcomes = group.map(() => ({ ok: false, problem: { code: "service_unavailable", detail: "The commit failed; retry.", extensions: {}, headers: { "Retry-After": "1" } } }));
        }
        group.forEach((w, i) => w.settle(outcomes[i] ?? { ok: false, problem: { code: "service_unavailable", detail: "No outcome.", extensions: {}, headers: {} } }));
      }
    } finally {
      this.draining = false;
    }
  }
}
