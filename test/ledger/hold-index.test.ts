// What a job holds is read through a partial index of the hold and release entries (migration 011):
// the settled charges of paid requests, most of the ledger, no longer enter it. The sum leaves out the
// job's own settled entry, and both databases' planners use the index for it.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldForQuery } from '../../src/billing/ledger.js';
import { newId } from '../../src/ids.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { accountWithBalance } from '../support/ledger-state.js';
import { closeTestApp } from '../support/teardown.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => closeTestApp(t));

describe("a job's holds", () => {
  it('sum its hold and release entries, not its settled one', async () => {
    const { ledger } = t.services;
    const a = await accountWithBalance(t, 50);
    const jobId = newId('job');
    await ledger.hold(a.accountId, jobId, 10, 0, 'Crawl', 'crawl');
    await ledger.hold(a.accountId, jobId, 5, 1, 'Crawl', 'crawl');
    expect(await ledger.heldFor(jobId)).toBe(15);
    // Settling writes the job's release and its settled entry, both with its id; only the release counts.
    await ledger.settleJob(a.accountId, jobId, 7, 'Crawl', 'crawl');
    expect(await ledger.heldFor(jobId)).toBe(0);
    expect(await ledger.balance(a.accountId)).toBe(50 - 7);
  });

  it("is looked up through the partial index on the store's database", async () => {
    const { db, dialect } = t.services.store;
    const query = heldForQuery(db, newId('job')).compile();
    let plan: string;
    if (dialect === 'sqlite') {
      const explained = await db.executeQuery<{ detail: string }>({
        ...query,
        sql: `explain query plan ${query.sql}`,
      });
      plan = explained.rows.map((r) => r.detail).join('\n');
    } else {
      // A small table is cheaper to scan: forbid that, so the plan shows whether the index can serve.
      plan = await db.transaction().execute(async (tx) => {
        await sql`set local enable_seqscan = off`.execute(tx);
        const explained = await tx.executeQuery<{ 'QUERY PLAN': string }>({
          ...query,
          sql: `explain ${query.sql}`,
        });
        return explained.rows.map((r) => r['QUERY PLAN']).join('\n');
      });
    }
    expect(plan).toContain('credit_transactions_job_holds');
  });
});
