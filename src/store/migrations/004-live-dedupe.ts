import { type Kysely, sql } from 'kysely';

// At most one waiting or running job per account, kind and dedupe key, enforced by the database so
// that two identical requests arriving at the same moment share one job (and one hold).
export async function up(db: Kysely<unknown>): Promise<void> {
  // Duplicates left by the race this index closes: the oldest keeps the key.
  await sql`
    update jobs set dedupe_key = null
    where dedupe_key is not null and status in ('queued', 'active')
      and id not in (
        select min(id) from jobs
        where dedupe_key is not null and status in ('queued', 'active')
        group by account_id, kind, dedupe_key
      )`.execute(db);
  await db.schema
    .createIndex('jobs_live_dedupe')
    .on('jobs')
    .columns(['account_id', 'kind', 'dedupe_key'])
    .unique()
    .where(sql<boolean>`dedupe_key is not null and status in ('queued', 'active')`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('jobs_live_dedupe').execute();
}
