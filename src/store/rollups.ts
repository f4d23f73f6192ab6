// Builds the ledger sums (ledger_sums) and the job counts from the rows
// themselves: the migration that introduced them runs this over existing data, and a bulk load
// that bypasses the ledger (the history benchmark) runs it for the accounts it filled. Not for a
// live account: the ledger keeps its rollups itself, entry by entry, and this replaces them whole.
import { type QueryExecutorProvider, sql } from 'kysely';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** The periods ledger_sums keeps, with their length (null: all time, one row starting at 0). */
export const PERIOD_MS = { hour: HOUR_MS, day: DAY_MS, all: null } as const;
export type Period = keyof typeof PERIOD_MS;

/** Where the period holding `at` starts. */
export const periodStart = (period: Period, at: number) => {
  const size = PERIOD_MS[period];
  return size === null ? 0 : at - (at % size);
};

/** Any handle: the migration's untyped one, the app's, a transaction. */
type AnyDb = QueryExecutorProvider;

/** Rebuilds the ledger sums of `accountIds` (every account when omitted). */
export async function rebuildLedgerRollups(db: AnyDb, accountIds?: readonly string[]): Promise<void> {
  const only = accountIds ? sql`where account_id in (${sql.join(accountIds)})` : sql``;
  await sql`delete from ledger_sums ${only}`.execute(db);
  for (const [period, size] of Object.entries(PERIOD_MS)) {
    // All time: one row per type and operation, starting at 0 (a constant is no GROUP BY term).
    const start = size === null ? sql`0` : sql`created_at - created_at % ${sql.lit(size)}`;
    const byStart = size === null ? sql`` : sql`${start},`;
    await sql`
      insert into ledger_sums (account_id, period, start, type, operation, amount, entries)
      select account_id, ${sql.lit(period)}, ${start}, type, coalesce(operation, ''), sum(amount), count(*)
      from credit_transactions ${only}
      group by account_id, ${byStart} type, coalesce(operation, '')`.execute(db);
  }
}

/** Rebuilds the job counts of `accountIds` (every account when omitted) and drops their deltas. */
export async function rebuildJobCounts(db: AnyDb, accountIds?: readonly string[]): Promise<void> {
  const only = accountIds ? sql`where account_id in (${sql.join(accountIds)})` : sql``;
  await sql`delete from job_counts ${only}`.execute(db);
  await sql`delete from job_count_deltas ${only}`.execute(db);
  await sql`
    insert into job_counts (account_id, status, n)
    select account_id, status, count(*) from jobs ${only} group by account_id, status`.execute(db);
}
