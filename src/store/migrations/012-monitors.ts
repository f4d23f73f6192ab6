import type { Kysely } from 'kysely';

// Monitors and their events. A monitor's schedule is persisted with it (`next_check_at`), so the
// embedded deployment survives restarts; `state` is what its last check saw (the videos seen, the
// page's snapshot, the site's pages), compared by the next. Each event is written once: its
// `dedupe_key` (a video's id, the check that saw a change) is unique per monitor, so a check run
// again after a crash reports nothing twice.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('monitors')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('account_id', 'varchar(64)', (c) => c.notNull().references('accounts.id'))
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('target', 'varchar(4096)', (c) => c.notNull())
    .addColumn('name', 'varchar(500)')
    .addColumn('options', 'text', (c) => c.notNull())
    .addColumn('every', 'varchar(100)', (c) => c.notNull())
    .addColumn('timezone', 'varchar(64)')
    .addColumn('webhook_url', 'varchar(2048)')
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('paused_reason', 'varchar(16)')
    .addColumn('state', 'text')
    .addColumn('state_version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('anchor_at', 'bigint', (c) => c.notNull())
    .addColumn('next_check_at', 'bigint')
    .addColumn('last_check_at', 'bigint')
    .addColumn('ticks', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('checks', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('events', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('feed_token', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('monitors_account')
    .on('monitors')
    .columns(['account_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('monitors_due').on('monitors').columns(['next_check_at']).execute();

  await db.schema
    .createTable('monitor_events')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('monitor_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('account_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('type', 'varchar(32)', (c) => c.notNull())
    .addColumn('dedupe_key', 'varchar(300)', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('job_id', 'varchar(64)')
    .addColumn('delivery_id', 'varchar(64)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('monitor_events_once')
    .on('monitor_events')
    .columns(['monitor_id', 'dedupe_key'])
    .unique()
    .execute();
  await db.schema
    .createIndex('monitor_events_list')
    .on('monitor_events')
    .columns(['monitor_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['monitor_events', 'monitors']) await db.schema.dropTable(t).execute();
}
