import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { rebuildJobCounts, rebuildLedgerRollups } from '../rollups.js';

// Costs that do not grow with an account's history:
// - credit_transactions and jobs get indexes that serve every listing filter in time order, with the
//   id as tie-break (keyset pagination walks (created_at, id));
// - every ledger entry now names its operation (scrape, crawl, transcript, …) and also lands in
//   ledger_sums (amount and entries per account, type and operation, for each UTC hour, each UTC day
//   and all time), written by the ledger in the entry's own transaction; built here for the ledgers
//   that exist;
// - job counts per account and status: a trigger appends a ±1 row to job_count_deltas on every
//   insert, delete and status change, and the sweeper folds those into job_counts. Appending never
//   waits on another transaction, so the hot job statements gain no lock;
// - expired results are found through a partial index instead of a scan of every job, and expired
//   idempotency keys through an index on their time.
export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;

  await db.schema.alterTable('credit_transactions').addColumn('operation', 'varchar(64)').execute();
  await db.schema.alterTable('request_holds').addColumn('operation', 'varchar(64)').execute();
  await db.schema
    .createIndex('credit_transactions_account_time')
    .on('credit_transactions')
    .columns(['account_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('credit_transactions_account_type_time')
    .on('credit_transactions')
    .columns(['account_id', 'type', 'created_at', 'id'])
    .execute();
  await db.schema.dropIndex('credit_transactions_account').execute();

  await db.schema
    .createIndex('jobs_account_time')
    .on('jobs')
    .columns(['account_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('jobs_account_status_time')
    .on('jobs')
    .columns(['account_id', 'status', 'created_at', 'id'])
    .execute();
  await db.schema.dropIndex('jobs_account').execute();
  await db.schema
    .createIndex('jobs_result_expiry')
    .on('jobs')
    .column('result_expires_at')
    .where(sql<boolean>`result is not null`)
    .execute();

  // The sweeper drops idempotency keys after 24 h: found by time, not by a scan of every key.
  await db.schema
    .createIndex('idempotency_keys_created')
    .on('idempotency_keys')
    .column('created_at')
    .execute();

  await db.schema
    .createTable('ledger_sums')
    .addColumn('account_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('period', 'varchar(8)', (c) => c.notNull())
    .addColumn('start', 'bigint', (c) => c.notNull())
    .addColumn('type', 'varchar(32)', (c) => c.notNull())
    .addColumn('operation', 'varchar(64)', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('entries', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('ledger_sums_pk', ['account_id', 'period', 'start', 'type', 'operation'])
    // SQLite: rows stored in key order, so a range of them is read without a lookup per row.
    .$call((t) => (pg ? t : t.modifyEnd(sql`without rowid`)))
    .execute();
  await db.schema
    .createTable('job_counts')
    .addColumn('account_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('job_counts_pk', ['account_id', 'status'])
    .execute();
  if (pg) {
    await sql`create table job_count_deltas (
      id bigserial primary key, account_id varchar(64) not null, status varchar(16) not null,
      delta integer not null)`.execute(db);
    await sql`create function unfurl_job_count_delta() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          insert into job_count_deltas (account_id, status, delta) values (new.account_id, new.status, 1);
        elsif tg_op = 'DELETE' then
          insert into job_count_deltas (account_id, status, delta) values (old.account_id, old.status, -1);
        elsif new.status is distinct from old.status then
          insert into job_count_deltas (account_id, status, delta)
          values (old.account_id, old.status, -1), (new.account_id, new.status, 1);
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger jobs_count_delta after insert or delete or update of status on jobs
      for each row execute function unfurl_job_count_delta()`.execute(db);
  } else {
    await sql`create table job_count_deltas (
      id integer primary key, account_id varchar(64) not null, status varchar(16) not null,
      delta integer not null)`.execute(db);
    await sql`create trigger jobs_count_insert after insert on jobs begin
      insert into job_count_deltas (account_id, status, delta) values (new.account_id, new.status, 1);
      end`.execute(db);
    await sql`create trigger jobs_count_delete after delete on jobs begin
      insert into job_count_deltas (account_id, status, delta) values (old.account_id, old.status, -1);
      end`.execute(db);
    await sql`create trigger jobs_count_status after update of status on jobs
      when old.status is not new.status begin
      insert into job_count_deltas (account_id, status, delta)
      values (old.account_id, old.status, -1), (new.account_id, new.status, 1);
      end`.execute(db);
  }
  await db.schema
    .createIndex('job_count_deltas_account')
    .on('job_count_deltas')
    .columns(['account_id', 'status'])
    .execute();

  // Entries written before operations were recorded: a job's entries take its kind; a request's, the
  // operation its description names (the descriptions the request routes used until now).
  await sql`
    update credit_transactions set operation = coalesce(
      (select kind from jobs where jobs.id = credit_transactions.job_id),
      case replace(description, 'Release: ', '')
        when 'Scrape' then 'scrape' when 'Map' then 'map' when 'Metadata' then 'metadata'
        when 'Playlist metadata' then 'playlist' when 'Search' then 'search'
        when 'Microblog post' then 'microblog' when 'Channel metadata' then 'channel'
        when 'Channel videos' then 'channel_videos' when 'Playlist videos' then 'playlist_videos'
        when 'Comments' then 'comments' when 'Video metadata' then 'video'
        when 'Transcript' then 'transcript' when 'Transcript translation' then 'translate'
        when 'Transcript translation (model)' then 'translate'
        when 'Held while the job is sized' then 'sizing'
        else case when type in ('hold', 'release', 'settled') then 'request' else '' end
      end)
    where operation is null`.execute(db);
  await rebuildLedgerRollups(db);
  await rebuildJobCounts(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  if (pg) {
    await sql`drop trigger jobs_count_delta on jobs`.execute(db);
    await sql`drop function unfurl_job_count_delta()`.execute(db);
  } else {
    for (const t of ['jobs_count_insert', 'jobs_count_delete', 'jobs_count_status']) {
      await sql`drop trigger ${sql.raw(t)}`.execute(db);
    }
  }
  for (const t of ['job_count_deltas', 'job_counts', 'ledger_sums']) {
    await db.schema.dropTable(t).execute();
  }
  await db.schema.dropIndex('idempotency_keys_created').execute();
  await db.schema.dropIndex('jobs_result_expiry').execute();
  await db.schema.createIndex('jobs_account').on('jobs').columns(['account_id', 'created_at']).execute();
  await db.schema.dropIndex('jobs_account_status_time').execute();
  await db.schema.dropIndex('jobs_account_time').execute();
  await db.schema
    .createIndex('credit_transactions_account')
    .on('credit_transactions')
    .columns(['account_id', 'created_at'])
    .execute();
  await db.schema.dropIndex('credit_transactions_account_type_time').execute();
  await db.schema.dropIndex('credit_transactions_account_time').execute();
  await db.schema.alterTable('request_holds').dropColumn('operation').execute();
  await db.schema.alterTable('credit_transactions').dropColumn('operation').execute();
}
