// Opens the database: SQLite file under the data dir (embedded) or PostgreSQL (DATABASE_URL).
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, type SqliteDatabase, SqliteDialect, type Transaction } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import { migrateToLatest } from './migrator.js';
import type { Database } from './schema.js';
import { BackgroundCheckpoints } from './sqlite-checkpoints.js';
import { attachReads, SqliteReads } from './sqlite-reads.js';
import { cachedStatements } from './sqlite-statements.js';

export type Dialect = 'sqlite' | 'pg';
export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;

export interface PgPools {
  api: pg.Pool;
  worker: pg.Pool;
}

export interface Store {
  readonly db: Db;
  /**
   * The same database for the job engine's worker-side writes (claims, leases, job ends). On
   * PostgreSQL its commits do not wait for the WAL flush: a database crash may lose the last few
   * such commits, which the engine redoes anyway (the job's lease runs out and it runs again, billed
   * once, since a job's end and its billing commit together). Accepting a job stays fully durable.
   */
  readonly workerDb: Db;
  readonly dialect: Dialect;
  /** PostgreSQL: the connection pools under `db` and `workerDb` (for prepared statements). */
  readonly pools?: PgPools;
  close(): Promise<void>;
}

// PostgreSQL returns BIGINT as a string; our values (ms times, credit sums) fit in a double.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));
pg.types.setTypeParser(1700, (v) => Number(v));

export function openStore(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Store {
  if (config.databaseUrl) {
    const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 10 });
    // An idle client whose server connection drops (restart, terminated backend) must not crash
    // the process; the pool replaces it on the next checkout.
    pool.on('error', (err) => console.error(`postgres idle client error: ${err.message}`));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const workerPool = new pg.Pool({
      connectionString: config.databaseUrl,
      max: 10,
      options: '-c synchronous_commit=off',
    });
    workerPool.on('error', (err) => console.error(`postgres idle client error: ${err.message}`));
    const workerDb = new Kysely<Database>({ dialect: new PostgresDialect({ pool: workerPool }) });
    return {
      db,
      workerDb,
      dialect: 'pg',
      pools: { api: pool, worker: workerPool },
      close: async () => {
        await Promise.all([db.destroy(), workerDb.destroy()]);
      },
    };
  }
  fs.mkdirSync(config.dataDir, { recursive: true });
  const filePath = path.join(config.dataDir, 'unfurl.sqlite');
  const file = new SQLite(filePath);
  file.pragma('journal_mode = WAL');
  file.pragma('synchronous = NORMAL');
  file.pragma('busy_timeout = 5000');
  file.pragma('foreign_keys = ON');
  const checkpoints = new BackgroundCheckpoints(filePath, file);
  const database: SqliteDatabase = { close: () => file.close(), prepare: cachedStatements(file) };
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  const reads = new SqliteReads(filePath);
  attachReads(db, reads);
  return {
    db,
    workerDb: db,
    dialect: 'sqlite',
    close: async () => {
      await checkpoints.stop();
      reads.close();
      await db.destroy();
    },
  };
}

/** Opens the store and brings its schema up to date. */
export async function openMigratedStore(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<Store> {
  const store = openStore(config);
  try {
    await migrateToLatest(store);
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

/** True when the error is a unique-constraint violation on either dialect. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return (
    e?.code === '23505' ||
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}
