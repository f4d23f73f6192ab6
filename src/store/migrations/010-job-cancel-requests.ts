import type { Kysely } from 'kysely';

// A job's owner may cancel it. A queued job ends at once; a running one is told through this column:
// its worker watches for requests on the jobs it holds and stops the attempt (jobs/cancel-watch.ts),
// and the sweeper ends a requested job whose worker died as cancelled rather than running it again.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('cancel_requested_at', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').dropColumn('cancel_requested_at').execute();
}
