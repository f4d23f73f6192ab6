// Folds the job count deltas (±1 rows a trigger appends on every job insert, delete and status
// change) into job_counts, a bounded batch per transaction. Appending deltas never waits on another
// transaction, which is why the job statements write them instead of updating job_counts; this fold
// (run by the sweeper) keeps the deltas few, so counting an account's jobs reads a handful of rows.
import type { Db } from '../../store/db.js';

/** Folds up to `batch` deltas; answers how many were folded. Safe to run on many processes at once. */
export async function foldJobCountDeltas(db: Db, batch = 5000): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const taken = await tx
      .deleteFrom('job_count_deltas')
      .where('id', 'in', (eb) => eb.selectFrom('job_count_deltas').select('id').orderBy('id').limit(batch))
      .returning(['account_id', 'status', 'delta'])
      .execute();
    const sums = new Map<string, { account_id: string; status: string; n: number }>();
    for (const d of taken) {
      const key = `${d.account_id}\u0000${d.status}`;
      const s = sums.get(key) ?? { account_id: d.account_id, status: d.status, n: 0 };
      s.n += Number(d.delta);
      sums.set(key, s);
    }
    // In key order, so two folds running at once lock the count rows in the same order.
    const rows = [...sums.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, s]) => s);
    for (const r of rows) {
      if (r.n === 0) continue;
      await tx
        .insertInto('job_counts')
        .values(r)
        .onConflict((oc) =>
          oc.columns(['account_id', 'status']).doUpdateSet((eb) => ({ n: eb('job_counts.n', '+', r.n) })),
        )
        .execute();
    }
    return taken.length;
  });
}
