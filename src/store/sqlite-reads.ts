// Embedded SQLite: the hot paths' plain reads (PreparedQuery selects outside a transaction) run on a
// connection of their own, at once. On the one serving connection a read queues behind Kysely's
// connection lock, so behind any transaction in progress (a paid-answer batch spans several turns of
// the microtask queue), and costs a chain of promises more than SQLite's own work. WAL lets this
// connection read the last commit while the other writes; it never writes (query_only).
import SQLite from 'better-sqlite3';
import { cachedStatements } from './sqlite-statements.js';

export class SqliteReads {
  private readonly file: SQLite.Database;
  private readonly statement: (sql: string) => SQLite.Statement;

  constructor(filePath: string) {
    this.file = new SQLite(filePath);
    this.file.pragma('busy_timeout = 5000');
    this.file.pragma('query_only = ON');
    this.statement = cachedStatements(this.file);
  }

  /** The rows of a select, read in one autocommit read of the last committed state. */
  all<Row>(sql: string, parameters: readonly unknown[]): Row[] {
    return this.statement(sql).all(parameters) as Row[];
  }

  close(): void {
    this.file.close();
  }
}

// Keyed by the Kysely instance (db.ts imports this file, so its types are not named here).
const readsByDb = new WeakMap<object, SqliteReads>();

/** Makes `reads` serve the plain reads of `db` (not those of its transactions, which are other objects). */
export function attachReads(db: object, reads: SqliteReads): void {
  readsByDb.set(db, reads);
}

/** The connection that serves `db`'s plain reads, if it has one. */
export function readsOf(db: object): SqliteReads | undefined {
  return readsByDb.get(db);
}
