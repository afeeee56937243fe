// Counts a request's D1 round trips (one per statement run, one per batch) for `npm run bench`:
// the bench entry (src/bench-entry.ts) wraps the real binding and reports them in `X-Bench-D1`.
import { type IoWait, waited } from "./io-wait.ts";

export interface D1Count extends IoWait {
  queries: number;
  writes: number;
}

export function d1Count(): D1Count {
  return { queries: 0, writes: 0, waitMs: 0, inFlight: 0, waitStarted: 0 };
}

const WRITE = /^\s*(?:INSERT|UPDATE|DELETE|REPLACE)\b/i;

interface Inner {
  statement: D1PreparedStatement;
  sql: string;
}

function countedStatement(statement: D1PreparedStatement, sql: string, count: D1Count, inner: WeakMap<object, Inner>): D1PreparedStatement {
  const hit = () => {
    count.queries++;
    if (WRITE.test(sql)) count.writes++;
  };
  const wrapped = {
    bind: (...values: unknown[]) => countedStatement(statement.bind(...values), sql, count, inner),
    first: (column?: string) => (hit(), waited(count, () => (column === undefined ? statement.first() : statement.first(column)))),
    all: () => (hit(), waited(count, () => statement.all())),
    run: () => (hit(), waited(count, () => statement.run())),
    raw: (options?: { columnNames?: boolean }) => (hit(), waited(count, () => (options?.columnNames ? statement.raw({ columnNames: true }) : statement.raw()))),
  };
  inner.set(wrapped, { statement, sql });
  // The wrapper implements every method of the abstract class D1PreparedStatement.
  return wrapped as unknown as D1PreparedStatement;
}

/** `session` with every round trip added to `count`. */
export function countedSession(session: D1DatabaseSession, count: D1Count): D1DatabaseSession {
  const inner = new WeakMap<object, Inner>();
  const wrapped = {
    prepare: (sql: string) => countedStatement(session.prepare(sql), sql, count, inner),
    // A batch is one round trip; it writes when one of its statements does (reads batch too).
    batch: <T = unknown>(statements: D1PreparedStatement[]) => {
      count.queries++;
      if (statements.some((s) => WRITE.test(inner.get(s)?.sql ?? "INSERT"))) count.writes++;
      return waited(count, () => session.batch<T>(statements.map((s) => inner.get(s)?.statement ?? s)));
    },
    getBookmark: () => session.getBookmark(),
  };
  return wrapped as unknown as D1DatabaseSession;
}

/** The binding, with every session it opens counted (the app opens one per request). */
export function countedDatabase(db: D1Database, count: D1Count): D1Database {
  return new Proxy(db, {
    get(target, property) {
      if (property === "withSession") return (constraint?: string) => countedSession(target.withSession(constraint), count);
      const value: unknown = Reflect.get(target, property);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
