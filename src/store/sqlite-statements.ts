// SQLite statements kept for reuse. Kysely prepares every query anew, and preparing is a large part of
// a simple query's cost in SQLite; our queries come from a fixed set of builders, so their SQL texts
// repeat. Bounded: the oldest statement goes first once `max` are kept.
import type SQLite from 'better-sqlite3';

export function cachedStatements(file: SQLite.Database, max = 500): (sql: string) => SQLite.Statement {
  const cache = new Map<string, SQLite.Statement>();
  return (sql) => {
    let stmt = cache.get(sql);
    if (!stmt) {
      stmt = file.prepare(sql);
      if (cache.size >= max) cache.delete(cache.keys().next().value!);
      cache.set(sql, stmt);
    }
    return stmt;
  };
}
