// GET /v1/account/usage: the caller's credit transactions, newest first, with limit/offset/type.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { confirmCheckout } from '../support/checkout.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

interface Txn {
  id: string;
  amount: number;
  type: string;
  description: string;
  job_id: string | null;
  ref_kind: string | null;
  created_at: number;
}
interface Page {
  transactions: Txn[];
  limit: number;
  offset: number;
  total: number;
}

const get = (key: string | null, query: string) =>
  t.call(key, { method: 'GET', url: `/v1/account/usage${query ? `?${query}` : ''}` });

const page = async (key: string, query: string): Promise<Page> => {
  const res = await get(key, query);
  expect(res.statusCode).toBe(200);
  return res.json();
};

/** Buys a package through the test-mode checkout; answers the checkout id. */
async function buy(key: string, packageId: string): Promise<string> {
  const { id, checkoutUrl } = (
    await t.call(key, { method: 'POST', url: '/v1/credits/purchase', payload: { package_id: packageId } })
  ).json();
  const res = await confirmCheckout(t, checkoutUrl);
  expect(res.json().credited).toBe(true);
  return id;
}

/**
 * An account with 1 registration grant, 3 purchases, 2 operator grants and 1 clawback: 7
 * transactions, written a millisecond apart or more so their order is known.
 */
async function accountWithHistory() {
  const account = await t.register();
  const { ledger } = t.services;
  const tick = () => new Promise((r) => setTimeout(r, 3));
  const checkouts: string[] = [];
  await tick();
  checkouts.push(await buy(account.apiKey, 'credits_500'));
  await tick();
  await ledger.grant(account.accountId, 7, 'Operator grant: goodwill');
  await tick();
  checkouts.push(await buy(account.apiKey, 'credits_2000'));
  await tick();
  await ledger.clawback(account.accountId, 20, 'Operator clawback: correction');
  await tick();
  await ledger.grant(account.accountId, 3, 'Operator grant: more goodwill');
  await tick();
  checkouts.push(await buy(account.apiKey, 'credits_500'));
  return { ...account, checkouts };
}

describe('GET /v1/account/usage', () => {
  it('lists every transaction newest first with defaults limit 20, offset 0', async () => {
    const { apiKey, checkouts } = await accountWithHistory();
    const all = await page(apiKey, '');
    expect(all).toMatchObject({ limit: 20, offset: 0, total: 7 });
    expect(all.transactions.map((x) => [x.type, x.amount])).toEqual([
      ['purchase', 500],
      ['grant', 3],
      ['clawback', -20],
      ['purchase', 2000],
      ['grant', 7],
      ['purchase', 500],
      ['grant', 100],
    ]);
    for (const x of all.transactions) {
      expect(Object.keys(x).sort()).toEqual([
        'amount',
        'created_at',
        'description',
        'id',
        'job_id',
        'operation',
        'ref_kind',
        'type',
      ]);
      expect(x.id).toMatch(/^txn_/);
      // What job_id names: a job, a synchronous request or a checkout (null for grants and clawbacks).
      const kinds = { job_: 'job', req_: 'request', chk_: 'checkout' } as Record<string, string>;
      expect(x.ref_kind).toBe(x.job_id === null ? null : (kinds[x.job_id.slice(0, 4)] ?? 'unknown'));
      expect(Number.isInteger(x.created_at)).toBe(true);
      expect(Math.abs(x.created_at - Date.now())).toBeLessThan(60_000);
      expect(typeof x.description).toBe('string');
    }
    const createdAt = all.transactions.map((x) => x.created_at);
    expect([...createdAt].sort((a, b) => b - a)).toEqual(createdAt);
    // job_id: the checkout id for purchases, null for grants.
    expect(all.transactions.filter((x) => x.type === 'purchase').map((x) => x.job_id)).toEqual(
      [...checkouts].reverse(),
    );
    for (const x of all.transactions.filter((y) => y.type === 'grant')) expect(x.job_id).toBeNull();
    // The balance is the sum of the history.
    const sum = all.transactions.reduce((s, x) => s + x.amount, 0);
    expect((await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits).toBe(sum);
    expect(sum).toBe(100 + 500 + 7 + 2000 - 20 + 3 + 500);
  });

  it('pages with limit and offset; total stays the full count', async () => {
    const { apiKey } = await accountWithHistory();
    const all = (await page(apiKey, 'limit=100')).transactions;
    const seen: Txn[] = [];
    for (let offset = 0; offset < 9; offset += 3) {
      const p = await page(apiKey, `limit=3&offset=${offset}`);
      expect(p).toMatchObject({ limit: 3, offset, total: 7 });
      expect(p.transactions).toEqual(all.slice(offset, offset + 3));
      seen.push(...p.transactions);
    }
    expect(seen.map((x) => x.id)).toEqual(all.map((x) => x.id));
    const past = await page(apiKey, 'offset=50');
    expect(past).toMatchObject({ transactions: [], offset: 50, total: 7 });
    const farPast = await page(apiKey, 'offset=1000000000');
    expect(farPast).toMatchObject({ transactions: [], offset: 1_000_000_000, total: 7 });
    const one = await page(apiKey, 'limit=1');
    expect(one.transactions).toEqual([all[0]]);
    expect((await page(apiKey, 'limit=100')).limit).toBe(100);
  });

  it.each([
    ['purchase', 3],
    ['grant', 3],
    ['clawback', 1],
    ['settled', 0],
    ['hold', 0],
    ['release', 0],
  ])('type=%s filters, and total counts only that type (%i)', async (type, count) => {
    const { apiKey } = await accountWithHistory();
    const p = await page(apiKey, `type=${type}`);
    expect(p.total).toBe(count);
    expect(p.transactions).toHaveLength(count);
    for (const x of p.transactions) expect(x.type).toBe(type);
  });

  it('combines type with limit and offset', async () => {
    const { apiKey, checkouts } = await accountWithHistory();
    const p = await page(apiKey, 'type=purchase&limit=1&offset=1');
    expect(p).toMatchObject({ limit: 1, offset: 1, total: 3 });
    expect(p.transactions.map((x) => x.job_id)).toEqual([checkouts[1]]);
  });

  it("never shows another account's transactions", async () => {
    const a = await accountWithHistory();
    const b = await t.register();
    const p = await page(b.apiKey, 'limit=100');
    expect(p.total).toBe(1);
    expect(p.transactions).toHaveLength(1);
    expect(p.transactions[0]).toMatchObject({ type: 'grant', amount: 100 });
    expect(JSON.stringify(p)).not.toContain(a.checkouts[0]!);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=2.5', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=x', 'offset'],
    ['offset=99999999999999999999', 'offset'],
    ['offset=1000000001', 'offset'],
    ['type=bogus', 'type'],
    ['type=', 'type'],
    ['type=GRANT', 'type'],
  ])('%s → 400 naming %s', async (query, param) => {
    const { apiKey } = await t.register();
    const res = await get(apiKey, query);
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error).toBe('invalid_request');
    expect(body.message).toContain(`'${param}'`);
    expect(body.details).toBe(param);
  });

  it('type=bogus names the accepted types', async () => {
    const { apiKey } = await t.register();
    const res = await get(apiKey, 'type=bogus');
    for (const type of ['grant', 'purchase', 'settled', 'clawback'])
      expect(res.json().message).toContain(type);
  });

  it('401 without a key', async () => {
    const res = await get(null, '');
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('unauthorized');
  });
});
