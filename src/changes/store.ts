// The change feed's D1 access (docs/changes.md): the outbox rows a commit inserts in its own
// batch, and the feed's reads in the team's and the public view. `seq` is the only position a
// cursor holds (docs/storage-protocol.md "Change events", why it never skips).
import type { EventType, EventTypes, SeenEvent } from "../model/change-events.ts";

/** One event as the feed shows it; `team` and `version` are null where the view hides them. */
export type ChangeEvent = Omit<SeenEvent, "public">;

export interface VersionEvent extends EventTypes {
  datasetId: string;
  teamId: string;
  versionId: string;
  occurred: string;
}

/** The event of a version commit: added to the batch that commits the version, never sent alone. */
export function versionEventStatement(db: D1Database, event: VersionEvent): D1PreparedStatement {
  return db
    .prepare("INSERT INTO change_events (type, public_type, dataset_id, team_id, version_id, occurred) VALUES (?, ?, ?, ?, ?, ?)")
    .bind(event.type, event.publicType, event.datasetId, event.teamId, event.versionId, event.occurred);
}

/**
 * The event of a delete, read from the dataset row in the same transaction, so it goes in the
 * batch before the row's DELETE: a delete that finds no row (another got there first) makes none.
 */
export function deleteEventStatement(db: D1Database, datasetId: string, occurred: string): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO change_events (type, public_type, dataset_id, team_id, version_id, occurred)
       SELECT 'dataset.deleted', CASE visibility WHEN 'public' THEN 'dataset.withdrawn' END, id, team_id, NULL, ?2
       FROM datasets WHERE id = ?1`,
    )
    .bind(datasetId, occurred);
}

interface EventRecord {
  seq: number;
  type: EventType;
  dataset_id: string;
  team_id: string | null;
  version_id: string | null;
  occurred: string;
}

function toEvent(r: EventRecord): ChangeEvent {
  return { seq: r.seq, type: r.type, datasetId: r.dataset_id, version: r.version_id, team: r.team_id, occurred: r.occurred };
}

/** Who reads: a team sees its own datasets' events; null is the public view. */
export type FeedView = { teamId: string } | null;

/**
 * Events after `afterSeq`, oldest first. The public view shows what an outsider may read now:
 * public events of datasets that are public today, and every withdrawal, with the id only.
 */
export async function readEvents(db: D1Database, view: FeedView, afterSeq: number, limit: number): Promise<ChangeEvent[]> {
  const statement =
    view === null
      ? db
          .prepare(
            `SELECT e.seq, e.public_type AS type, e.dataset_id,
               CASE e.public_type WHEN 'dataset.withdrawn' THEN NULL ELSE e.team_id END AS team_id,
               CASE e.public_type WHEN 'dataset.withdrawn' THEN NULL ELSE e.version_id END AS version_id,
               e.occurred
             FROM change_events e
             WHERE e.seq > ?1 AND e.public_type IS NOT NULL
               AND (e.public_type = 'dataset.withdrawn'
                    OR EXISTS (SELECT 1 FROM datasets d WHERE d.id = e.dataset_id AND d.visibility = 'public'))
             ORDER BY e.seq LIMIT ?2`,
          )
          .bind(afterSeq, limit)
      : db
          .prepare(
            `SELECT seq, type, dataset_id, team_id, version_id, occurred FROM change_events
             WHERE team_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3`,
          )
          .bind(view.teamId, afterSeq, limit);
  const { results } = await statement.all<EventRecord>();
  return results.map(toEvent);
}

/** The newest event's position (0 before the first): where `since=now` starts. */
export async function newestSeq(db: D1Database): Promise<number> {
  const row = await db.prepare("SELECT MAX(seq) AS seq FROM change_events").first<{ seq: number | null }>();
  return row?.seq ?? 0;
}
