import type { Kysely } from 'kysely';

// The holds of synchronous requests still running: one row from the hold to its settlement or release.
// A process that dies mid-request leaves its row behind, and the sweeper gives those credits back; the
// table stays as small as the number of requests in flight, however long the ledger grows.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('request_holds')
    .addColumn('request_id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('account_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('request_holds_created').on('request_holds').column('created_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('request_holds').execute();
}
