// Listing and summing a long history: GET /v1/account/usage and /v1/jobs by cursor (the page after a
// page's `next`, the same rows offset paging gives, never a row twice even while new rows arrive),
// their maintained totals, and GET /v1/account/usage/summary per bucket and operation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldJobCountDeltas } from '../../src/jobs/records/counts.js';
import { createTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const json = async (key: string, url: string) => {
  const res = await t.call(key, { method: 'GET', url });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

/** An account with its registration grant, `n` settled 1-credit scrapes and a purchase-sized grant. */
async function busyAccount(n: number) {
  const account = await t.register();
  const { ledger } = t.services;
  await ledger.grant(account.accountId, 1000, 'Operator grant: load');
  for (let i = 0; i < n; i++) {
    await ledger.holdRequest(account.accountId, `req_${account.accountId}_${i}`, 2, 'Scrape', 'scrape');
    await ledger.endRequest(account.accountId, `req_${account.accountId}_${i}`, 1, 'Scrape');
  }
  return account;
}

describe('GET /v1/account/usage by cursor', () => {
  it('walks the same rows as offset paging, per type too, and ends with next: null', async () => {
    const { apiKey } = await busyAccount(12); // 2 grants + 36 entries
    for (const type of ['', 'settled', 'grant']) {
      const filter = type ? `&type=${type}` : '';
      const all = await json(apiKey, `/v1/account/usage?limit=100${filter}`);
      expect(all.next).toBeNull();
      const walked: string[] = [];
      let url = `/v1/account/usage?limit=5${filter}`;
      for (let pages = 0; pages < 50; pages++) {
        const page = await json(apiKey, url);
        expect(page.total).toBe(all.total);
        walked.push(...page.transactions.map((x: { id: string }) => x.id));
        if (!page.next) break;
        url = `/v1/account/usage?limit=5${filter}&cursor=${page.next}`;
      }
      expect(walked).toEqual(all.transactions.map((x: { id: string }) => x.id));
      expect(walked).toHaveLength(all.total);
    }
  });

  it('does not repeat or skip rows when new entries arrive between pages', async () => {
    const { apiKey, accountId } = await busyAccount(4);
    const first = await json(apiKey, '/v1/account/usage?limit=4');
    await t.services.ledger.grant(accountId, 5, 'Operator grant: meanwhile');
    const rest = await json(apiKey, `/v1/account/usage?limit=100&cursor=${first.next}`);
    const ids = [...first.transactions, ...rest.transactions].map((x: { id: string }) => x.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(first.total); // the total before the new grant: every older row once
    expect(rest.total).toBe(first.total + 1);
  });

  it('names each transaction’s operation', async () => {
    const { apiKey } = await busyAccount(1);
    const page = await json(apiKey, '/v1/account/usage?limit=10');
    // Entries of the same millisecond are ordered by id: compare as a set.
    const pairs = page.transactions.map(
      (x: { type: string; operation: string }) => `${x.type}:${x.operation}`,
    );
    expect(pairs.sort()).toEqual(['grant:', 'grant:', 'hold:scrape', 'release:scrape', 'settled:scrape']);
  });

  it.each([
    ['cursor=', 'cursor'],
    ['cursor=bm90IGEgY3Vyc29y', 'cursor'],
    ['cursor=%E2%9C%93', 'cursor'],
    [`cursor=${'A'.repeat(201)}`, 'cursor'],
    [`cursor=${Buffer.from('12.x; drop table').toString('base64url')}`, 'cursor'],
    // Only the form we write: numbers spelt otherwise, and other encodings of the same bytes, are not ours.
    [`cursor=${Buffer.from('1e3.txn_abc').toString('base64url')}`, 'cursor'],
    [`cursor=${Buffer.from('0x10.txn_abc').toString('base64url')}`, 'cursor'],
    [`cursor=${Buffer.from('0012.txn_abc').toString('base64url')}`, 'cursor'],
    [`cursor=${Buffer.from(' 12.txn_abc').toString('base64url')}`, 'cursor'],
    [`cursor=${Buffer.from('12.txn_abc').toString('base64')}`, 'cursor'],
  ])('%s → 400 naming %s', async (query, param) => {
    const { apiKey } = await t.register();
    for (const path of ['/v1/account/usage', '/v1/jobs']) {
      const res = await t.call(apiKey, { method: 'GET', url: `${path}?${query}` });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_request', details: param });
      expect(res.json().message).toContain(`'${param}'`);
    }
  });
});

describe('GET /v1/jobs by cursor, with maintained counts', () => {
  it('pages by cursor and counts per status, before and after the sweeper folds the deltas', async () => {
    const { apiKey, accountId } = await t.register();
    const db = t.services.store.db;
    const now = Date.now();
    const rows = Array.from({ length: 9 }, (_, i) => ({
      id: `job_hist_${accountId}_${i}`,
      account_id: accountId,
      kind: 'crawl',
      status: i % 3 === 0 ? ('failed' as const) : ('completed' as const),
      input: '{}',
      max_attempts: 1,
      run_at: now,
      created_at: now - 1000 + i,
    }));
    await db.insertInto('jobs').values(rows).execute();
    const check = async () => {
      expect((await json(apiKey, '/v1/jobs?limit=2')).total).toBe(9);
      expect((await json(apiKey, '/v1/jobs?status=failed')).total).toBe(3);
      expect((await json(apiKey, '/v1/jobs?status=completed')).total).toBe(6);
      expect((await json(apiKey, '/v1/jobs?status=queued')).total).toBe(0);
    };
    await check();
    await db.updateTable('jobs').set({ status: 'failed' }).where('id', '=', rows[1]!.id).execute();
    while ((await foldJobCountDeltas(db, 3)) > 0);
    expect((await json(apiKey, '/v1/jobs?status=failed')).total).toBe(4);
    await db.updateTable('jobs').set({ status: 'completed' }).where('id', '=', rows[1]!.id).execute();
    await check();

    const walked: string[] = [];
    let url = '/v1/jobs?limit=4';
    for (;;) {
      const page = await json(apiKey, url);
      walked.push(...page.jobs.map((j: { id: string }) => j.id));
      if (!page.next) break;
      url = `/v1/jobs?limit=4&cursor=${page.next}`;
    }
    expect(walked).toEqual(rows.map((r) => r.id).reverse());
    const failed = await json(apiKey, '/v1/jobs?status=failed&limit=2');
    const after = await json(apiKey, `/v1/jobs?status=failed&limit=2&cursor=${failed.next}`);
    expect([...failed.jobs, ...after.jobs].map((j: { id: string }) => j.id)).toEqual([
      rows[6]!.id,
      rows[3]!.id,
      rows[0]!.id,
    ]);
    expect(after.next).toBeNull();
  });
});

describe('GET /v1/account/usage/summary', () => {
  it('sums spent, bought, granted and clawed back per bucket and per operation', async () => {
    const { apiKey, accountId } = await busyAccount(3); // 3 scrapes settled at 1
    const { ledger } = t.services;
    await ledger.hold(accountId, `job_sum_${accountId}`, 10, 1, 'Hold for crawl job', 'crawl');
    await ledger.settleJob(accountId, `job_sum_${accountId}`, 7, 'crawl job', 'crawl');
    await ledger.hold(accountId, `job_open_${accountId}`, 4, 1, 'Hold for transcript job', 'transcript');
    await ledger.purchase(accountId, 500, `chk_sum_${accountId}`, 'Bought');
    await ledger.clawback(accountId, 6, 'Operator clawback: test');
    const now = Date.now();
    for (const bucket of ['hour', 'day']) {
      const s = await json(
        apiKey,
        `/v1/account/usage/summary?from=${now - 3 * 86_400_000}&to=${now + 1}&bucket=${bucket}`,
      );
      expect(s.totals).toEqual({ spent: 10, bought: 500, granted: 1100, clawedBack: 6, held: 4, net: 1580 });
      expect(s.operations).toEqual([
        { operation: 'crawl', spent: 7, held: 0, entries: 3 },
        { operation: 'scrape', spent: 3, held: 0, entries: 9 },
        { operation: 'transcript', spent: 0, held: 4, entries: 1 },
      ]);
      const size = bucket === 'hour' ? 3_600_000 : 86_400_000;
      expect(s.from % size).toBe(0);
      expect(s.to % size).toBe(0);
      expect(s.buckets).toHaveLength((s.to - s.from) / size);
      const current = s.buckets.find((b: { start: number }) => now >= b.start && now < b.start + size);
      expect(current.spentByOperation).toEqual({ crawl: 7, scrape: 3 });
      expect(current.net).toBe(1580);
      expect(s.buckets.reduce((sum: number, b: { net: number }) => sum + b.net, 0)).toBe(1580);
    }
    expect(await ledger.balance(accountId)).toBe(1580);
    // /v1/me reads the same sums: used credits this month.
    expect((await json(apiKey, '/v1/me')).usedCredits).toBe(10);
  });

  it('defaults to the last 30 days by day, and a range before any entry is all zeros', async () => {
    const { apiKey } = await t.register();
    const s = await json(apiKey, '/v1/account/usage/summary');
    expect(s.bucket).toBe('day');
    expect(s.buckets.length).toBeGreaterThanOrEqual(30);
    expect(s.totals.granted).toBe(100);
    const old = await json(apiKey, '/v1/account/usage/summary?from=0&to=86400000');
    expect(old.totals).toEqual({ spent: 0, bought: 0, granted: 0, clawedBack: 0, held: 0, net: 0 });
    expect(old.buckets).toHaveLength(1);
  });

  it.each([
    ['bucket=week', 'bucket'],
    ['from=-1', 'from'],
    ['from=abc', 'from'],
    ['to=0', 'to'],
    ['from=7200000&to=3600000&bucket=hour', 'to'],
    ['from=0&to=86400000000&bucket=hour', 'to'],
  ])('%s → 400 naming %s', async (query, param) => {
    const { apiKey } = await t.register();
    const res = await t.call(apiKey, { method: 'GET', url: `/v1/account/usage/summary?${query}` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_request', details: param });
  });

  it('401 without a key', async () => {
    const res = await t.call(null, { method: 'GET', url: '/v1/account/usage/summary' });
    expect(res.statusCode).toBe(401);
  });
});
