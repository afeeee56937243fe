// Wrappers around the real local D1 binding, for what one local instance cannot show:
// `countingD1` counts every query the worker makes (and whether it writes); `laggingReplica`
// plays a read replica that has not yet received some rows, so read-your-writes through
// X-D1-Bookmark can be tested (local D1 has no replicas, hence no lag: docs/edge-and-caching.md,
// "D1 read replicas").
// Both wrap D1's own objects and hand every query to the real database; nothing is faked but
// the replica's delay.

export interface Query {
  sql: string;
  write: boolean;
}

// D1PreparedStatement is an abstract class; the wrappers implement its methods one by one and
// keep the real statement for batch(), which needs the binding's own objects.
const inner = new WeakMap<object, D1PreparedStatement>();
const sqlOf = new WeakMap<object, string>();
const unwrap = (statement: D1PreparedStatement) => inner.get(statement) ?? statement;

const WRITE = /^\s*(?:INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER)\b/i;

function wrapStatement(real: D1PreparedStatement, sql: string, onRun: (sql: string) => void, keep: (row: unknown) => boolean): D1PreparedStatement {
  const wrapped = {
    bind: (...values: unknown[]) => wrapStatement(real.bind(...values), sql, onRun, keep),
    first: async (column?: string) => {
      onRun(sql);
      const row = await real.first<Record<string, unknown>>();
      if (row === null || !keep(row)) return null;
      return column === undefined ? row : (row[column] ?? null);
    },
    all: async () => {
      onRun(sql);
      const result = await real.all();
      return { ...result, results: result.results.filter(keep) };
    },
    run: async () => {
      onRun(sql);
      const result = await real.run();
      return { ...result, results: (result.results ?? []).filter(keep) };
    },
    raw: async (options?: { columnNames?: boolean }) => {
      onRun(sql);
      return options?.columnNames ? real.raw({ columnNames: true }) : real.raw();
    },
  };
  inner.set(wrapped, real);
  sqlOf.set(wrapped, sql);
  return wrapped as unknown as D1PreparedStatement;
}

interface Source {
  prepare(sql: string): D1PreparedStatement;
  batch<T>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]>;
}

function wrapSource(source: Source, onRun: (sql: string) => void, keep: (row: unknown) => boolean = () => true) {
  return {
    prepare: (sql: string) => wrapStatement(source.prepare(sql), sql, onRun, keep),
    batch: <T>(statements: D1PreparedStatement[]) => {
      // One batch is one round trip, whatever it holds; it writes when one of its statements does.
      onRun(statements.length === 0 ? "" : `BATCH ${statements.map((s) => sqlOf.get(s) ?? "?").join(" ; ")}`);
      return source.batch<T>(statements.map(unwrap)).then((results) => results.map((result) => ({ ...result, results: (result.results ?? []).filter(keep) })));
    },
  };
}

/** The real binding, counting every query and batch (one round trip each). */
export function countingD1(db: D1Database): { db: D1Database; queries: Query[]; sessions: string[] } {
  const queries: Query[] = [];
  const sessions: string[] = [];
  const record = (sql: string) => {
    const statements = sql.startsWith("BATCH ") ? sql.slice(6).split(" ; ") : [sql];
    queries.push({ sql, write: statements.some((statement) => statement === "?" || WRITE.test(statement)) });
  };
  const wrapped = {
    ...wrapSource(db, record),
    exec: (sql: string) => db.exec(sql),
    dump: () => db.dump(),
    withSession: (constraint?: string) => {
      sessions.push(constraint ?? "first-unconstrained");
      const session = db.withSession(constraint);
      return { ...wrapSource(session, record), getBookmark: () => session.getBookmark() };
    },
  };
  return { db: wrapped as unknown as D1Database, queries, sessions };
}

/**
 * A database whose sessions read from a replica at `replicaBookmark` unless they start on the
 * primary or from a newer bookmark (as D1 waits for a replica to catch up with a bookmark).
 * The replica lacks the rows `unreplicated` selects.
 */
export function laggingReplica(
  db: D1Database,
  replicaBookmark: string,
  unreplicated: (row: Record<string, unknown>) => boolean,
): { db: D1Database; sessions: string[] } {
  const sessions: string[] = [];
  const keep = (row: unknown) => !(typeof row === "object" && row !== null && unreplicated(row as Record<string, unknown>));
  const wrapped = {
    prepare: (sql: string) => db.prepare(sql),
    batch: <T>(statements: D1PreparedStatement[]) => db.batch<T>(statements),
    exec: (sql: string) => db.exec(sql),
    dump: () => db.dump(),
    withSession: (constraint?: string) => {
      sessions.push(constraint ?? "first-unconstrained");
      const session = db.withSession(constraint);
      const fresh = constraint === "first-primary" || (constraint !== undefined && constraint !== "first-unconstrained" && constraint > replicaBookmark);
      if (fresh) return session;
      return { ...wrapSource(session, () => {}, keep), getBookmark: () => replicaBookmark };
    },
  };
  return { db: wrapped as unknown as D1Database, sessions };
}

/** The bookmark of the local database as of now. */
export async function currentBookmark(db: D1Database): Promise<string> {
  const session = db.withSession("first-primary");
  await session.prepare("SELECT 1").first();
  const bookmark = session.getBookmark();
  if (bookmark === null) throw new Error("local D1 returned no bookmark");
  return bookmark;
}
