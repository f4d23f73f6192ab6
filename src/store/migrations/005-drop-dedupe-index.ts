import type { Kysely } from 'kysely';

// jobs_dedupe (account_id, dedupe_key, status) answered "is there a live job with this key" before
// 004's partial unique index did; it only cost an index entry on every job insert and state change.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('jobs_dedupe').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('jobs_dedupe')
    .on('jobs')
    .columns(['account_id', 'dedupe_key', 'status'])
    .execute();
}
