// A cached answer is charged with no hold: one settled entry, the balance and the sums moved in one
// transaction. Bounded all the same: N concurrent requests for a cached scrape, transcript or video
// on a balance of B answer exactly B 200s (each charged against a different balance) and N-B 402s,
// with nothing fetched upstream. A miss still holds first, and a hit on an empty balance is a 402.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { accountWithBalance, requestLedgerState } from '../support/ledger-state.js';
import { type Loopback, startServer } from '../support/loopback.js';
import { closeTestApp } from '../support/teardown.js';
import { startYouTubeReplay, type YouTubeReplay } from '../support/youtube-replay.js';

const N = 30;
const B = 7;
const VIDEO = 'GJLlxj_dtq8';

let site: Loopback;
let replay: YouTubeReplay;
let t: TestApp;
let rich: string;
/** Pages the site served. */
let pagesServed = 0;

beforeAll(async () => {
  site = await startServer((_req, res) => {
    pagesServed++;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<html><head><title>Cached</title></head><body><p>A page worth caching.</p></body></html>');
  });
  replay = await startYouTubeReplay();
  t = await createTestApp({
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_UPSTREAM_YOUTUBE: replay.url,
    UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
  });
  rich = (await t.register()).apiKey;
});

afterAll(async () => {
  await closeTestApp(t);
  await replay?.close();
  await site?.close();
});

/** The all-time sum the ledger keeps for an account's settled entries of `operation`. */
async function settledSum(accountId: string, operation: string) {
  const row = await t.services.store.db
    .selectFrom('ledger_sums')
    .select(['amount', 'entries'])
    .where('account_id', '=', accountId)
    .where('period', '=', 'all')
    .where('type', '=', 'settled')
    .where('operation', '=', operation)
    .executeTakeFirst();
  return { amount: Number(row?.amount ?? 0), entries: Number(row?.entries ?? 0) };
}

const upstreamCalls = () => pagesServed + replay.requests.length;

const cases = [
  {
    name: 'scrape',
    operation: 'scrape',
    url: () => `/v1/web/scrape?url=${encodeURIComponent(`${site.url}/page`)}`,
  },
  {
    name: 'transcript',
    operation: 'transcript',
    url: () => `/v1/transcript?url=${encodeURIComponent(`https://www.youtube.com/watch?v=${VIDEO}`)}&lang=en`,
  },
  { name: 'video metadata', operation: 'video', url: () => `/v1/vidsite/video?id=${VIDEO}` },
];

describe.each(cases)('a cached $name', ({ operation, url }) => {
  it('is fetched and held for once (the miss), then answered from the cache', async () => {
    const { apiKey, accountId } = await accountWithBalance(t, 5);
    const first = await t.call(apiKey, { method: 'GET', url: url() });
    expect(first.statusCode, first.body).toBe(200);
    expect(await requestLedgerState(t, accountId)).toEqual({ holds: 1, releases: 1, settled: 1, open: 0 });
    const before = upstreamCalls();
    const second = await t.call(apiKey, { method: 'GET', url: url() });
    expect(second.statusCode, second.body).toBe(200);
    expect(second.body).toBe(first.body);
    expect(second.headers['x-credits-charged']).toBe('1');
    expect(second.headers['x-credits-remaining']).toBe('3');
    expect(upstreamCalls()).toBe(before);
    // The hit: one settled entry, no hold.
    expect(await requestLedgerState(t, accountId)).toEqual({ holds: 1, releases: 1, settled: 2, open: 0 });
    expect(await settledSum(accountId, operation)).toEqual({ amount: -2, entries: 2 });
    expect(await t.services.ledger.balance(accountId)).toBe(3);
  });

  it(`on a balance of ${B}: ${N} concurrent requests answer exactly ${B} 200s, the rest 402`, async () => {
    const warm = await t.call(rich, { method: 'GET', url: url() });
    expect(warm.statusCode, warm.body).toBe(200);
    const { apiKey, accountId } = await accountWithBalance(t, B);
    const before = upstreamCalls();
    const responses = await Promise.all(
      Array.from({ length: N }, () => t.call(apiKey, { method: 'GET', url: url() })),
    );
    const ok = responses.filter((r) => r.statusCode === 200);
    const refused = responses.filter((r) => r.statusCode === 402);
    expect(responses.map((r) => r.statusCode).filter((s) => s !== 200 && s !== 402)).toEqual([]);
    expect(ok).toHaveLength(B);
    expect(refused).toHaveLength(N - B);
    for (const r of refused) expect(r.json().error).toBe('insufficient_credits');
    for (const r of ok) expect(r.body).toBe(warm.body);
    // Each success was charged against a different balance: B-1, …, 0.
    expect(ok.map((r) => Number(r.headers['x-credits-remaining'])).sort((x, y) => x - y)).toEqual(
      Array.from({ length: B }, (_, i) => i),
    );
    expect(upstreamCalls()).toBe(before);
    expect(await t.services.ledger.balance(accountId)).toBe(0);
    expect(await requestLedgerState(t, accountId)).toEqual({ holds: 0, releases: 0, settled: B, open: 0 });
    expect(await settledSum(accountId, operation)).toEqual({ amount: -B, entries: B });
  });

  it('on an empty balance is refused with 402 and charges nothing', async () => {
    expect((await t.call(rich, { method: 'GET', url: url() })).statusCode).toBe(200);
    const { apiKey, accountId } = await accountWithBalance(t, 0);
    const res = await t.call(apiKey, { method: 'GET', url: url() });
    expect(res.statusCode).toBe(402);
    expect(res.json().error).toBe('insufficient_credits');
    expect(res.headers['x-credits-charged']).toBeUndefined();
    expect(await requestLedgerState(t, accountId)).toEqual({ holds: 0, releases: 0, settled: 0, open: 0 });
  });
});

describe('an answer made without all its parts', () => {
  // The replay has this video's player answer but no watch page (404), so its metadata lacks what
  // only the watch page tells; kept, it would stand in for the whole answer for a cache lifetime.
  const DEGRADED = 'dsMFmonKDD4';

  it('is not kept: video metadata without the watch page is fetched (and held for) again', async () => {
    const { apiKey, accountId } = await accountWithBalance(t, 5);
    const url = `/v1/vidsite/video?id=${DEGRADED}`;
    const first = await t.call(apiKey, { method: 'GET', url });
    expect(first.statusCode, first.body).toBe(200);
    const watchPages = replay.count('/watch');
    expect(watchPages).toBeGreaterThan(0);
    const second = await t.call(apiKey, { method: 'GET', url });
    expect(second.statusCode, second.body).toBe(200);
    expect(second.body).toBe(first.body);
    // The answer was made anew (the player answer itself may come from the upstream cache: it was whole).
    expect(replay.count('/watch')).toBeGreaterThan(watchPages);
    // Both were misses: held, then settled.
    expect(await requestLedgerState(t, accountId)).toEqual({ holds: 2, releases: 2, settled: 2, open: 0 });
  });
});
