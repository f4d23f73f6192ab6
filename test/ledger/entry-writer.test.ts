// The one writer of ledger entries (src/billing/ledger-entries.ts) keeps the balance invariant by
// itself: a debit the balance does not cover is a 402 that leaves nothing behind, even in a caller's
// transaction that catches it and commits; the balance still equals the sum of the entries, and the
// sums still equal the entries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { newId } from '../../src/ids.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { accountWithBalance } from '../support/ledger-state.js';
import { closeTestApp } from '../support/teardown.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => closeTestApp(t));

describe('the ledger-entry writer', () => {
  it('a refused debit leaves no entry and no sum, even when its transaction goes on and commits', async () => {
    const { accountId } = await accountWithBalance(t, 10);
    const { db } = t.services.store;
    const jobId = newId('job');
    const refused = await db.transaction().execute(async (tx) => {
      const err = await t.services.ledger.hold(accountId, jobId, 11, 1, 'test hold', 'transcript', tx).then(
        () => null,
        (e: unknown) => e,
      );
      // The caller goes on: a hold the balance covers, in the same transaction.
      await t.services.ledger.hold(accountId, jobId, 4, 2, 'test hold', 'transcript', tx);
      return err;
    });
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'insufficient_credits' });
    expect(await t.services.ledger.balance(accountId)).toBe(6);
    const holds = await db
      .selectFrom('credit_transactions')
      .select(['amount', 'reference'])
      .where('job_id', '=', jobId)
      .execute();
    expect(holds.map((h) => [Number(h.amount), h.reference])).toEqual([[-4, `hold:${jobId}:2`]]);
    const entries = await db
      .selectFrom('credit_transactions')
      .select((eb) => eb.fn.sum<number>('amount').as('total'))
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    expect(Number(entries?.total)).toBe(6);
    const sums = await db
      .selectFrom('ledger_sums')
      .select(['amount', 'entries'])
      .where('account_id', '=', accountId)
      .where('period', '=', 'all')
      .where('type', '=', 'hold')
      .execute();
    expect(sums.map((s) => [Number(s.amount), Number(s.entries)])).toEqual([[-4, 1]]);
  });
});
