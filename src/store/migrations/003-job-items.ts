import type { Kysely } from 'kysely';

// The pieces of a job's result that are too many for one row: a crawl's pages, one row each, written
// as the job goes and read back a slice at a time.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('job_items')
    .addColumn('job_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('job_items_pk', ['job_id', 'seq'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('job_items').execute();
}
