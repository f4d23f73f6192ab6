import { type Kysely, sql } from 'kysely';

// credit_transactions_job answers one question: what a job still holds (its hold and release entries,
// Ledger.heldFor). It indexed every entry, though, and most entries are the settled charges of paid
// requests, each carrying its request id: one more B-tree insert per paid request for an index no
// lookup of theirs uses. The index now holds the hold and release entries only.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('credit_transactions_job').execute();
  await db.schema
    .createIndex('credit_transactions_job_holds')
    .on('credit_transactions')
    .column('job_id')
    .where(sql<boolean>`type in ('hold', 'release')`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('credit_transactions_job_holds').execute();
  await db.schema.createIndex('credit_transactions_job').on('credit_transactions').column('job_id').execute();
}
