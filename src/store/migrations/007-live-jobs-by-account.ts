import { type Kysely, sql } from 'kysely';

// Per-account limits on live crawls and media jobs count an account's queued and active jobs of
// those kinds at every submit: this index holds just those rows, so the count costs the same however
// many jobs the account ran before. Kinds without such a limit stay out of it (no index write on the
// hot path of plain jobs). The kinds are the ones with `perAccount` set when this was written.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('jobs_live_limited')
    .on('jobs')
    .columns(['account_id', 'kind'])
    .where(
      sql<boolean>`status in ('queued', 'active') and kind in ('crawl', 'transcript', 'ocr', 'describe', 'extract')`,
    )
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('jobs_live_limited').execute();
}
