// Cache hits are charged in batches (Ledger.chargeRequest: the hits of one turn of the event loop share
// a transaction, each account's in one statement per table). A batch must give every charge the
// answer it would have had alone, in arrival order: its own balance after, a 402 for the one its
// balance no longer covers while later, cheaper ones still pass, and other accounts untouched by a
// neighbour's refusal. The entries and sums it writes are the ones single charges write.
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

/** Starts the charges in one synchronous run, so they reach the ledger in the same batch. */
function chargeTogether(charges: Array<{ accountId: string; amount: number; requestId?: string }>) {
  return Promise.allSettled(
    charges.map((c) =>
      t.services.ledger.chargeRequest(
        c.accountId,
        c.requestId ?? newId('req'),
        c.amount,
        'Test cached answer',
        'transcript',
      ),
    ),
  );
}

const balanceAfter = (r: PromiseSettledResult<number>) => (r.status === 'fulfilled' ? r.value : r.reason);

describe('cache hits charged together', () => {
  it('each gets its own balance after, in arrival order, and the entries and sums match', async () => {
    const a = await accountWithBalance(t, 60);
    const results = await chargeTogether([3, 1, 5, 2].map((amount) => ({ accountId: a.accountId, amount })));
    expect(results.map(balanceAfter)).toEqual([57, 56, 51, 49]);
    expect(await t.services.ledger.balance(a.accountId)).toBe(49);
    const entries = await t.services.store.db
      .selectFrom('credit_transactions')
      .select(['amount', 'operation', 'job_id', 'reference'])
      .where('account_id', '=', a.accountId)
      .where('type', '=', 'settled')
      .execute();
    expect(entries.map((e) => Number(e.amount)).sort((x, y) => x - y)).toEqual([-5, -3, -2, -1]);
    for (const e of entries) {
      expect(e.operation).toBe('transcript');
      expect(e.reference).toBe(`settled:${e.job_id}`);
    }
    const sums = await t.services.store.db
      .selectFrom('ledger_sums')
      .select(['period', 'amount', 'entries'])
      .where('account_id', '=', a.accountId)
      .where('type', '=', 'settled')
      .execute();
    expect(sums.map((s) => [s.period, Number(s.amount), Number(s.entries)]).sort()).toEqual([
      ['all', -11, 4],
      ['day', -11, 4],
      ['hour', -11, 4],
    ]);
  });

  it('refuses only the charges the balance no longer covers; a later cheaper one still passes', async () => {
    const a = await accountWithBalance(t, 10);
    const results = await chargeTogether(
      [4, 4, 4, 1, 2].map((amount) => ({ accountId: a.accountId, amount })),
    );
    expect(results.slice(0, 2).map(balanceAfter)).toEqual([6, 2]);
    const refused = results[2]!;
    expect(refused.status).toBe('rejected');
    expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(AppError);
    expect((refused as PromiseRejectedResult).reason).toMatchObject({ code: 'insufficient_credits' });
    expect((refused as PromiseRejectedResult).reason.message).toContain('balance is 2 credits');
    expect(balanceAfter(results[3]!)).toBe(1);
    expect((results[4] as PromiseRejectedResult).reason).toMatchObject({ code: 'insufficient_credits' });
    expect(await t.services.ledger.balance(a.accountId)).toBe(1);
    const settled = await t.services.store.db
      .selectFrom('credit_transactions')
      .select('amount')
      .where('account_id', '=', a.accountId)
      .where('type', '=', 'settled')
      .execute();
    expect(settled.map((e) => Number(e.amount)).sort()).toEqual([-1, -4, -4]);
  });

  it("one account's refusal leaves the other accounts of the batch charged", async () => {
    const poor = await accountWithBalance(t, 1);
    const rich = await accountWithBalance(t, 50);
    const results = await chargeTogether([
      { accountId: rich.accountId, amount: 5 },
      { accountId: poor.accountId, amount: 3 },
      { accountId: rich.accountId, amount: 5 },
    ]);
    expect(balanceAfter(results[0]!)).toBe(45);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'insufficient_credits' });
    expect(balanceAfter(results[2]!)).toBe(40);
    expect(await t.services.ledger.balance(poor.accountId)).toBe(1);
    expect(await t.services.ledger.balance(rich.accountId)).toBe(40);
  });

  it('charges a request id once: the second charge of the same request fails and costs nothing', async () => {
    const a = await accountWithBalance(t, 20);
    const requestId = newId('req');
    const results = await chargeTogether([
      { accountId: a.accountId, amount: 2, requestId },
      { accountId: a.accountId, amount: 2, requestId },
      { accountId: a.accountId, amount: 1 },
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toContain('already charged');
    expect(await t.services.ledger.balance(a.accountId)).toBe(17);
  });

  it('a charge for an account that does not exist fails alone', async () => {
    const a = await accountWithBalance(t, 20);
    const results = await chargeTogether([
      { accountId: a.accountId, amount: 2 },
      { accountId: 'acc_missing', amount: 2 },
    ]);
    expect(balanceAfter(results[0]!)).toBe(18);
    expect(results[1]!.status).toBe('rejected');
  });
});
