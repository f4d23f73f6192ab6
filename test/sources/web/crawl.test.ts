// POST /v1/web/crawl end to end: a real app and job queue crawling a loopback site, polled through
// GET /v1/web/crawl/{jobId} with skip/next, billed 1 + 1 per page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobProcessing, startJobProcessing } from '../../../src/jobs/processing.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { type Loopback, startServer } from '../../support/loopback.js';
import { quietLogger } from '../../support/quiet-logger.js';
import { waitForJob } from '../../support/wait-for-job.js';

let site: Loopback;
let t: TestApp;
let processing: JobProcessing;
const hits = new Map<string, number>();
let active = 0;
let maxActive = 0;
// Pages under /held/ answer only once the test opens the gate, so a crawl cannot end early.
let openGate: () => void = () => {};
const gate = new Promise<void>((resolve) => {
  openGate = resolve;
});

const doc = (title: string, links: string[], extra = '') =>
  `<html><head><title>${title}</title></head><body><h1>${title}</h1><p>${extra}</p>${links
    .map((l) => `<a href="${l}">${l}</a>`)
    .join(' ')}</body></html>`;

beforeAll(async () => {
  site = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    hits.set(req.url ?? '', (hits.get(req.url ?? '') ?? 0) + 1);
    const send = (status: number, body: string, type = 'text/html') => {
      active++;
      maxActive = Math.max(maxActive, active);
      setTimeout(() => {
        active--;
        res.writeHead(status, { 'content-type': type }).end(body);
      }, 5);
    };
    if (path === '/robots.txt') return send(200, 'User-agent: *\nDisallow: /docs/private\n', 'text/plain');
    if (path === '/docs' || path === '/docs/') {
      return send(
        200,
        doc('Docs', [
          '/docs/a',
          '/docs/b#part',
          `HTTP://${req.headers.host}/docs/b`,
          '/docs/private/secret',
          '/docs/missing',
          '/about',
          '/docs/many',
          'https://elsewhere.example/docs/x',
        ]),
      );
    }
    if (path === '/docs/a') return send(200, doc('A', ['/docs/a/deep', '/docs'], 'Page A text.'));
    if (path === '/docs/a/deep') return send(200, doc('Deep', [], 'Deep text.'));
    if (path === '/docs/b') return send(200, doc('B', ['/docs/a'], 'Page B text.'));
    if (path === '/docs/many') {
      return send(
        200,
        doc(
          'Many',
          Array.from({ length: 130 }, (_, i) => `/docs/many/${i}`),
        ),
      );
    }
    if (/^\/docs\/many\/\d+$/.test(path)) return send(200, doc(`Many ${path}`, [], 'x'.repeat(2000)));
    if (path === '/about') return send(200, doc('About', []));
    if (path.startsWith('/held/')) {
      void gate.then(() => send(200, doc(`Held ${path}`, [], 'Held text.')));
      return;
    }
    if (path === '/missing-start') return send(404, 'no');
    return send(404, doc('Not found', []));
  });
  t = await createTestApp({
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_JOB_POLL_MS: '50',
    UNFURL_JOB_BACKOFF_MS: '50',
    UNFURL_UPSTREAM_RETRY_BASE_MS: '10',
    UNFURL_CRAWL_CONCURRENCY: '8',
    UNFURL_CRAWL_HOST_CONCURRENCY: '3',
  });
  processing = await startJobProcessing(t.services, quietLogger);
});

afterAll(async () => {
  await processing?.stop();
  await t?.close();
  await site?.close();
});

const waitForCrawl = (key: string, jobId: string) =>
  waitForJob(t, key, `/v1/web/crawl/${jobId}`, { timeoutMs: 30_000 });

const start = (key: string, payload: object) =>
  t.call(key, { method: 'POST', url: '/v1/web/crawl', payload });

/** The account's usage entries for one job, as [type, amount] pairs in sorted order. */
const ledgerOf = async (key: string, jobId: string) => {
  const usage = (await t.call(key, { method: 'GET', url: '/v1/account/usage?limit=100' })).json();
  return usage.transactions
    .filter((x: { job_id: string }) => x.job_id === jobId)
    .map((x: { type: string; amount: number }) => [x.type, x.amount])
    .sort();
};

describe('POST /v1/web/crawl', () => {
  it('crawls the child pages once each, honours robots.txt, records failures and bills 1 + pages', async () => {
    const { apiKey } = await t.register();
    const res = await start(apiKey, { url: `${site.url}/docs`, limit: 20, maxDepth: 1 });
    expect(res.statusCode).toBe(202);
    expect(res.headers['x-credits-held']).toBe('21');
    const { jobId } = res.json();
    const body = await waitForCrawl(apiKey, jobId);
    expect(body.status).toBe('completed');
    expect(body.stoppedReason).toBeNull();
    expect(body.total).toBe(body.pages.length);
    const urls = body.pages.map((p: { url: string }) => p.url);
    // Depth 1: the start page and its in-scope links; /about and other hosts are out of scope,
    // the robots-disallowed page is never fetched, and /docs/b is fetched once for three spellings.
    expect(urls.slice(0, 1)).toEqual([`${site.url}/docs`]);
    expect(urls).toContain(`${site.url}/docs/a`);
    expect(urls).toContain(`${site.url}/docs/b`);
    expect(urls).not.toContain(`${site.url}/about`);
    expect(urls).not.toContain(`${site.url}/docs/a/deep`);
    expect(hits.get('/docs/private/secret')).toBeUndefined();
    expect(hits.get('/docs/b'), JSON.stringify([...hits])).toBe(1);
    expect(hits.get('/about')).toBeUndefined();
    expect(body.failures).toEqual([
      expect.objectContaining({ url: `${site.url}/docs/missing`, error: 'not_found' }),
    ]);
    const pageA = body.pages.find((p: { url: string }) => p.url === `${site.url}/docs/a`);
    expect(pageA).toMatchObject({ name: 'A', countCharacters: expect.any(Number) });
    expect(pageA.content).toContain('Page A text.');
    const pages = urls.length;
    const account = (await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json();
    expect(account.credits).toBe(100 - (1 + pages));
    expect(await ledgerOf(apiKey, jobId)).toEqual([
      ['hold', -21],
      ['release', 21],
      ['settled', -(1 + pages)],
    ]);
  });

  it('pages the results with skip and next, and stays within the per-host concurrency', async () => {
    const { apiKey } = await t.register();
    maxActive = 0;
    const { jobId } = (await start(apiKey, { url: `${site.url}/docs/many`, limit: 99, maxDepth: 1 })).json();
    const first = await waitForCrawl(apiKey, jobId);
    expect(first.status).toBe('completed');
    expect(first.total).toBe(99);
    expect(maxActive).toBeLessThanOrEqual(3);
    // 99 pages fit in one answer (100 a page): no next.
    expect(first.pages).toHaveLength(99);
    expect(first.next).toBeUndefined();

    const { apiKey: k2, accountId } = await t.register();
    await t.services.ledger.grant(accountId, 200, 'more credits for a bigger crawl');
    const big = (await start(k2, { url: `${site.url}/docs/many`, limit: 131, maxDepth: 1 })).json();
    const done = await waitForCrawl(k2, big.jobId);
    expect(done.total).toBe(131);
    expect(done.pages).toHaveLength(100);
    expect(done.next).toBe(`http://127.0.0.1:8080/v1/web/crawl/${big.jobId}?skip=100`);
    const rest = (await t.call(k2, { method: 'GET', url: `/v1/web/crawl/${big.jobId}?skip=100` })).json();
    expect(rest.pages).toHaveLength(31);
    expect(rest.next).toBeUndefined();
    const all = [...done.pages, ...rest.pages].map((p: { url: string }) => p.url);
    expect(new Set(all).size).toBe(131);
  });

  it("runs a new account's default crawl on its 100 credits: the limit cut to 99 pages, stopped by credits", async () => {
    const { apiKey } = await t.register();
    // The default limit of 100 would hold 101: the crawl holds the 100 there are and crawls 99 pages.
    const res = await start(apiKey, { url: `${site.url}/docs/many`, maxDepth: 1 });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.headers['x-credits-held']).toBe('100');
    expect(res.headers['x-credits-remaining']).toBe('0');
    const { jobId } = res.json();
    const body = await waitForCrawl(apiKey, jobId);
    expect(body).toMatchObject({ status: 'completed', total: 99, stoppedReason: 'credits' });
    const job = (await t.call(apiKey, { method: 'GET', url: `/v1/jobs/${jobId}` })).json();
    expect(job.result).toMatchObject({ pagesScraped: 99, stoppedBy: 'credits' });
    expect((await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits).toBe(0);
    expect(await ledgerOf(apiKey, jobId)).toEqual([
      ['hold', -100],
      ['release', 100],
      ['settled', -100],
    ]);
  });

  it('crawls one page on a balance of 2, and says nothing of credits when the site ends first', async () => {
    const { apiKey, accountId } = await t.register();
    await t.services.ledger.clawback(accountId, 98, 'test: a nearly spent account');
    const res = await start(apiKey, { url: `${site.url}/docs/many`, limit: 50, maxDepth: 1 });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.headers['x-credits-held']).toBe('2');
    const one = await waitForCrawl(apiKey, res.json().jobId);
    expect(one).toMatchObject({ status: 'completed', total: 1, stoppedReason: 'credits' });
    expect(one.pages.map((p: { url: string }) => p.url)).toEqual([`${site.url}/docs/many`]);
    expect((await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits).toBe(0);

    // A limit cut by the balance but larger than the site: it ran out of links, not of credits.
    const rich = await t.register();
    await t.services.ledger.clawback(rich.accountId, 90, 'test: ten credits left');
    const small = await start(rich.apiKey, { url: `${site.url}/docs/a`, limit: 50, maxDepth: 1 });
    expect(small.headers['x-credits-held']).toBe('10');
    const done = await waitForCrawl(rich.apiKey, small.json().jobId);
    expect(done).toMatchObject({ status: 'completed', total: 2, stoppedReason: null });
  });

  it('refuses (402) a crawl only when not even one page can be paid, saying what a crawl needs', async () => {
    const { apiKey, accountId } = await t.register();
    await t.services.ledger.clawback(accountId, 99, 'test: one credit left');
    const res = await start(apiKey, { url: `${site.url}/docs`, limit: 1 });
    expect(res.statusCode).toBe(402);
    expect(res.json().error).toBe('insufficient_credits');
    expect(res.json().message).toMatch(
      /^A crawl needs at least 2 credits \(one page\) and the balance is 1 credit;/,
    );
    expect(res.json().message).toContain('GET /v1/credits/packages');
    expect((await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits).toBe(1);
    const jobs = (await t.call(apiKey, { method: 'GET', url: '/v1/jobs' })).json();
    expect(jobs.total).toBe(0);
  });

  it('two default crawls at once on 100 credits: one holds them all, the other is refused, never overdrawn', async () => {
    const { apiKey } = await t.register();
    // Neither crawl can end (and give back its hold) before both requests are answered.
    const both = await Promise.all([
      start(apiKey, { url: `${site.url}/held/a`, maxDepth: 0 }),
      start(apiKey, { url: `${site.url}/held/b`, maxDepth: 0 }),
    ]);
    openGate();
    expect(both.map((r) => r.statusCode).sort()).toEqual([202, 402]);
    const accepted = both.find((r) => r.statusCode === 202)!;
    expect(accepted.headers['x-credits-held']).toBe('100');
    const done = await waitForCrawl(apiKey, accepted.json().jobId);
    expect(done).toMatchObject({ status: 'completed', total: 1, stoppedReason: null });
    expect((await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits).toBe(98);
  });

  it('fails a crawl whose start page is missing, charging nothing', async () => {
    const { apiKey } = await t.register();
    const res = await start(apiKey, { url: `${site.url}/missing-start`, limit: 10 });
    expect(res.statusCode).toBe(202);
    const { jobId } = res.json();
    const body = await waitForCrawl(apiKey, jobId);
    expect(body.status).toBe('failed');
    expect(body.error).toMatch(/404/);
    expect(body.pages).toEqual([]);
    expect((await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits).toBe(100);
  });

  it('validates the body, naming the parameter, and holds nothing for a bad one', async () => {
    const { apiKey } = await t.register();
    for (const [payload, param] of [
      [{}, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: `${site.url}/docs`, limit: 0 }, 'limit'],
      [{ url: `${site.url}/docs`, limit: 5001 }, 'limit'],
      [{ url: `${site.url}/docs`, maxDepth: 21 }, 'maxDepth'],
      [{ url: `${site.url}/docs`, includePaths: ['(a+'] }, 'includePaths[0]'],
      [{ url: `${site.url}/docs`, excludePaths: ['ok', '(?=lookahead)'] }, 'excludePaths[1]'],
      [{ url: `${site.url}/docs`, includePaths: Array(21).fill('a') }, 'includePaths'],
      [{ url: `${site.url}/docs`, webhookUrl: 'file:///etc/passwd' }, 'webhookUrl'],
      [{ url: `${site.url}/docs`, unknown: 1 }, 'unknown'],
    ] as const) {
      const res = await start(apiKey, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().message, JSON.stringify(payload)).toContain(param);
    }
    expect((await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits).toBe(100);
  });

  it("does not show another account's crawl, nor a crawl under another kind's poll route", async () => {
    const owner = await t.register();
    const other = await t.register();
    const { jobId } = (
      await start(owner.apiKey, { url: `${site.url}/docs/a`, limit: 5, maxDepth: 0 })
    ).json();
    await waitForCrawl(owner.apiKey, jobId);
    expect((await t.call(other.apiKey, { method: 'GET', url: `/v1/web/crawl/${jobId}` })).statusCode).toBe(
      404,
    );
    expect((await t.call(owner.apiKey, { method: 'GET', url: `/v1/extract/${jobId}` })).statusCode).toBe(404);
  });
});
