// Work bounded by the balance: a synchronous paid request holds its price before any upstream work,
// so 30 concurrent scrapes of distinct pages on a balance of 2 fetch at most 2 pages — in one
// process, and (on PostgreSQL) spread over two API processes on the same database. A failed request
// releases its hold, and the hold of a request whose process died is given back by the sweeper.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_HOLD_MAX_AGE_MS } from '../../src/billing/ledger.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { usingPostgres } from '../support/env.js';
import { accountWithBalance, requestLedgerState } from '../support/ledger-state.js';
import { type Loopback, startServer } from '../support/loopback.js';
import { type ServerProcess, startServerProcess } from '../support/processes.js';
import { closeTestApp } from '../support/teardown.js';

const N = 30;
const BALANCE = 2;

let site: Loopback;
let t: TestApp;
const servers: ServerProcess[] = [];
/** Pages the site served, by path. */
const fetched: string[] = [];

beforeAll(async () => {
  site = await startServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/broken') {
      res.writeHead(500).end('broken');
      return;
    }
    fetched.push(path);
    // Slow enough that every request of the burst is in flight at once.
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<html><head><title>${path}</title></head><body><p>Page ${path} of the site.</p></body></html>`,
      );
    }, 150);
  });
  t = await createTestApp({ UNFURL_ALLOW_PRIVATE_NETWORK: 'true' });
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await closeTestApp(t);
  await site?.close();
});

function expectBounded(statuses: number[], pagesFetched: number) {
  expect(statuses.filter((s) => s !== 200 && s !== 402)).toEqual([]);
  expect(statuses.filter((s) => s === 200)).toHaveLength(BALANCE);
  expect(pagesFetched).toBeLessThanOrEqual(BALANCE);
}

describe(`${N} concurrent paid scrapes of distinct pages on a balance of ${BALANCE}`, () => {
  it('fetch at most 2 pages and charge exactly 2 (one process)', async () => {
    const { apiKey, accountId } = await accountWithBalance(t, BALANCE);
    const before = fetched.length;
    const responses = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        t.call(apiKey, { method: 'GET', url: '/v1/web/scrape', query: { url: `${site.url}/one/${i}` } }),
      ),
    );
    expectBounded(
      responses.map((r) => r.statusCode),
      fetched.length - before,
    );
    for (const r of responses.filter((x) => x.statusCode === 402)) {
      expect(r.json().error).toBe('insufficient_credits');
    }
    expect(await t.services.ledger.balance(accountId)).toBe(0);
    expect(await requestLedgerState(t, accountId)).toEqual({ holds: 2, releases: 2, settled: 2, open: 0 });
  });

  it.runIf(usingPostgres)(
    'fetch at most 2 pages across two API processes on the same PostgreSQL database',
    async () => {
      const env = { ...t.env.env, UNFURL_ALLOW_PRIVATE_NETWORK: 'true' };
      const started = await Promise.all([
        startServerProcess('test/support/paid-server.ts', env, 90_000),
        startServerProcess('test/support/paid-server.ts', env, 90_000),
      ]);
      servers.push(...started);
      const { apiKey, accountId } = await accountWithBalance(t, BALANCE);
      const before = fetched.length;
      const statuses = await Promise.all(
        Array.from({ length: N }, async (_, i) => {
          const target = encodeURIComponent(`${site.url}/two/${i}`);
          const res = await fetch(`${started[i % 2]!.url}/v1/web/scrape?url=${target}`, {
            headers: { authorization: `Bearer ${apiKey}` },
          });
          await res.arrayBuffer();
          return res.status;
        }),
      );
      expectBounded(statuses, fetched.length - before);
      expect(await t.services.ledger.balance(accountId)).toBe(0);
      expect(await requestLedgerState(t, accountId)).toEqual({ holds: 2, releases: 2, settled: 2, open: 0 });
    },
    120_000,
  );
});

describe('the hold of a paid request', () => {
  it('is released when the work fails: the request costs nothing', async () => {
    const { apiKey, accountId } = await accountWithBalance(t, 5);
    const res = await t.call(apiKey, {
      method: 'GET',
      url: '/v1/web/scrape',
      query: { url: `${site.url}/broken` },
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.headers['x-credits-charged']).toBeUndefined();
    expect(await t.services.ledger.balance(accountId)).toBe(5);
    expect(await requestLedgerState(t, accountId)).toEqual({ holds: 1, releases: 1, settled: 0, open: 0 });
  });

  it('of a request whose process died is given back by the sweeper, and only once it is stale', async () => {
    const { accountId } = await accountWithBalance(t, 5);
    const { ledger } = t.services;
    // A process holds for a request, then dies before ending it.
    expect(await ledger.holdRequest(accountId, 'req_died_mid_work', 1, 'Scrape', 'scrape')).toBe(4);
    expect(await ledger.releaseStaleRequestHolds(REQUEST_HOLD_MAX_AGE_MS)).toBe(0);
    expect(await ledger.balance(accountId)).toBe(4);
    const later = Date.now() + REQUEST_HOLD_MAX_AGE_MS + 1;
    expect(await ledger.releaseStaleRequestHolds(REQUEST_HOLD_MAX_AGE_MS, later)).toBeGreaterThanOrEqual(1);
    expect(await ledger.balance(accountId)).toBe(5);
    // The request's own end, should it ever come, charges nothing more.
    expect(await ledger.endRequest(accountId, 'req_died_mid_work', 1, 'Scrape')).toBeNull();
    expect(await ledger.balance(accountId)).toBe(5);
    expect(await requestLedgerState(t, accountId)).toEqual({ holds: 1, releases: 1, settled: 0, open: 0 });
  });
});

describe('the upstream work that sizes a job (here: following a short link)', () => {
  let platform: Loopback;
  let app: TestApp;
  const followed: string[] = [];
  beforeAll(async () => {
    // The short-video platform's stand-in: every short link redirects to a video page.
    platform = await startServer((req, res) => {
      followed.push(req.url ?? '');
      // Slow enough that every request of a burst asks for its hold while the first lookup is still in
      // flight, even on a busy machine with PostgreSQL (at 150 ms a late request of the ten could hold
      // the credit the first had just given back, and fetch a second time).
      setTimeout(() => {
        res.writeHead(302, { location: 'https://www.tiktok.com/@someone/video/7300000000000000001' });
        res.end();
      }, 1500);
    });
    app = await createTestApp({
      UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
      UNFURL_UPSTREAM_TIKTOK: platform.url,
      UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
    });
  });
  afterAll(async () => {
    await closeTestApp(app);
    await platform?.close();
  });

  const submitOcr = (key: string, n: number) =>
    app.call(key, {
      method: 'POST',
      url: '/v1/video/ocr',
      payload: { url: `https://vm.tiktok.com/ZMshort${n}/` },
    });

  it('is refused with 402 before anything is fetched when the balance is empty', async () => {
    const { apiKey, accountId } = await app.register();
    await app.services.ledger.clawback(accountId, 100, 'test: empty the account');
    const before = followed.length;
    const res = await submitOcr(apiKey, 1);
    expect(res.statusCode).toBe(402);
    expect(res.json().error).toBe('insufficient_credits');
    expect(followed.length).toBe(before);
  });

  it('runs under a hold of 1 credit that is always given back: 10 concurrent lookups on a balance of 1 make 1 fetch', async () => {
    const { apiKey, accountId } = await app.register();
    await app.services.ledger.clawback(accountId, 99, 'test: leave 1 credit');
    const before = followed.length;
    const rs = await Promise.all(Array.from({ length: 10 }, (_, i) => submitOcr(apiKey, 10 + i)));
    // OCR holds 10 credits: after the lookup every one of them is refused, and nothing stays held.
    expect(
      rs.map((r) => r.statusCode),
      rs[0]!.body,
    ).toEqual(Array(10).fill(402));
    expect(followed.length - before).toBeLessThanOrEqual(1);
    expect(await app.services.ledger.balance(accountId)).toBe(1);
    expect((await requestLedgerState(t, accountId)).open).toBe(0);
  });
});
