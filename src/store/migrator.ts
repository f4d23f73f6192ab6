// Applies the migrations of ./migrations in order; the same files serve SQLite and PostgreSQL.
import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import { migrations } from './migrations/index.js';

/** What migrating needs of a store (db.ts opens one and calls this: no import back to it). */
export interface MigrationTarget {
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on any schema
  readonly db: Kysely<any>;
  readonly dialect: 'sqlite' | 'pg';
}

class InlineProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

export async function migrateToLatest(store: MigrationTarget): Promise<string[]> {
  if (store.dialect === 'pg') {
    // Several processes may start together; one migrates while the others wait on this lock.
    return store.db.connection().execute(async (conn) => {
      await sql`select pg_advisory_lock(727274)`.execute(conn);
      try {
        return await run(new Migrator({ db: conn, provider: new InlineProvider() }));
      } finally {
        await sql`select pg_advisory_unlock(727274)`.execute(conn);
      }
    });
  }
  return run(new Migrator({ db: store.db, provider: new InlineProvider() }));
}

async function run(migrator: Migrator): Promise<string[]> {
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
