// POST /v1/web/crawl's Firecrawl options end to end, on a loopback site with robots.txt and a
// sitemap: sitemap skip/include/only, ignoreQueryParameters, deduplicateSimilarURLs, delay,
// maxConcurrency, crawlEntireDomain, and the 400s naming them (nothing held).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobProcessing, startJobProcessing } from '../../../src/jobs/processing.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { type Loopback, startServer } from '../../support/loopback.js';
import { quietLogger } from '../../support/quiet-logger.js';
import { waitForJob } from '../../support/wait-for-job.js';

let site: Loopback;
let t: TestApp;
let processing: JobProcessing;
/** Requests for pages (robots.txt and sitemaps left out), with when each arrived. */
let requests: { url: string; at: number }[] = [];
let active = 0;
let maxActive = 0;

const doc = (title: string, links: string[]) =>
  `<html><head><title>${title}</title></head><body><h1>${title}</h1><p>Text of ${title}.</p>${links
    .map((l) => `<a href="${l}">${l}</a>`)
    .join(' ')}</body></html>`;

const urlset = (...locs: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs
    .map((l) => `<url><loc>${l}</loc></url>`)
    .join('')}</urlset>`;

beforeAll(async () => {
  site = await startServer((req, res) => {
    const b = site.url;
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/robots.txt')
      return res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(`User-agent: *\nSitemap: ${b}/sm.xml\n`);
    if (path === '/sm.xml')
      return res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(urlset(`${b}/shop/from-map`, `${b}/about/outside`, `${b}/shop/a?from=map`, `${b}/list/x`));
    requests.push({ url: req.url ?? '', at: Date.now() });
    active++;
    maxActive = Math.max(maxActive, active);
    const send = (status: number, body: string) =>
      setTimeout(() => {
        active--;
        res.writeHead(status, { 'content-type': 'text/html' }).end(body);
      }, 5);
    if (path === '/shop' || path === '/shop/')
      return send(
        200,
        doc('Shop', [
          '/shop/a?x=1',
          '/shop/a?x=2',
          '/shop/b/',
          '/shop/b',
          '/shop/b/index.html',
          `http://127.0.0.1:${site.port}/shop/c`,
          `https://127.0.0.1:${site.port}/shop/c/`,
          '/about',
        ]),
      );
    if (path === '/list') return send(200, doc('List', ['/list/1', '/list/2', '/list/3', '/list/4']));
    if (path === '/empty') return send(200, doc('Empty', []));
    if (/^\/(shop|list|about)(\/|$)/.test(path)) return send(200, doc(`Page ${path}`, []));
    return send(404, doc('Not found', []));
  });
  t = await createTestApp({
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_JOB_POLL_MS: '50',
    UNFURL_JOB_BACKOFF_MS: '50',
    UNFURL_UPSTREAM_RETRY_BASE_MS: '10',
    UNFURL_CRAWL_CONCURRENCY: '8',
    UNFURL_CRAWL_HOST_CONCURRENCY: '4',
  });
  processing = await startJobProcessing(t.services, quietLogger);
});

afterAll(async () => {
  await processing?.stop();
  await t?.close();
  await site?.close();
});

const start = (key: string, payload: object) =>
  t.call(key, { method: 'POST', url: '/v1/web/crawl', payload });

/** Runs a crawl to its end on a fresh account: its poll answer, page URLs and the site's requests. */
async function crawled(payload: object) {
  const { apiKey } = await t.register();
  requests = [];
  maxActive = 0;
  const res = await start(apiKey, payload);
  expect(res.statusCode, res.body).toBe(202);
  const body = await waitForJob(t, apiKey, `/v1/web/crawl/${res.json().jobId}`, { timeoutMs: 30_000 });
  const pages: string[] = body.pages.map((p: { url: string }) => p.url.slice(site.url.length));
  const credits = (await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits as number;
  return { body, pages, requested: requests.map((r) => r.url), times: requests.map((r) => r.at), credits };
}

describe('POST /v1/web/crawl options', () => {
  it('by default reads no sitemap, keeps queries apart and fetches similar URLs once', async () => {
    const { pages, requested } = await crawled({ url: `${site.url}/shop`, maxDepth: 1 });
    // /shop/b/, /shop/b and /shop/b/index.html are one page; so are the http and https /shop/c.
    expect(pages.sort()).toEqual(['/shop', '/shop/a?x=1', '/shop/a?x=2', '/shop/b/', '/shop/c'].sort());
    expect(requested.sort()).toEqual(['/shop', '/shop/a?x=1', '/shop/a?x=2', '/shop/b/', '/shop/c'].sort());
  });

  it('ignoreQueryParameters fetches a path once, without its query', async () => {
    const { pages } = await crawled({ url: `${site.url}/shop`, maxDepth: 1, ignoreQueryParameters: true });
    expect(pages.sort()).toEqual(['/shop', '/shop/a', '/shop/b/', '/shop/c'].sort());
  });

  it('deduplicateSimilarURLs=false fetches each spelling', async () => {
    const { requested } = await crawled({
      url: `${site.url}/shop`,
      maxDepth: 1,
      deduplicateSimilarURLs: false,
    });
    expect(requested).toEqual(
      expect.arrayContaining(['/shop/b/', '/shop/b', '/shop/b/index.html', '/shop/c']),
    );
  });

  it('sitemap=include adds the sitemap pages in scope; sitemap=only crawls them alone', async () => {
    const inc = await crawled({ url: `${site.url}/shop`, maxDepth: 0, sitemap: 'include' });
    expect(inc.pages).toEqual(['/shop', '/shop/from-map', '/shop/a?from=map']);
    const only = await crawled({ url: `${site.url}/shop`, sitemap: 'only', ignoreQueryParameters: true });
    expect(only.pages).toEqual(['/shop/from-map', '/shop/a']);
    expect(only.requested).not.toContain('/shop');
    expect(only.credits).toBe(100 - 3);
  });

  it('sitemap=only fails, charging nothing, when no sitemap URL is within scope', async () => {
    const { body, credits, requested } = await crawled({ url: `${site.url}/empty`, sitemap: 'only' });
    expect(body.status).toBe('failed');
    expect(body.error).toMatch(/no sitemap of 127\.0\.0\.1:\d+ lists a page within the crawl's scope/);
    expect(requested).toEqual([]);
    expect(credits).toBe(100);
  });

  it('delay spaces the requests to the host, one at a time', async () => {
    const { pages, times } = await crawled({ url: `${site.url}/list`, maxDepth: 1, delay: 0.15 });
    expect(pages).toHaveLength(5);
    expect(maxActive).toBe(1);
    // Each request starts at least the delay after the previous one was answered (5 ms later still).
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(150);
  });

  it('maxConcurrency caps the pages fetched at once', async () => {
    const one = await crawled({ url: `${site.url}/list`, maxDepth: 1, maxConcurrency: 1 });
    expect(one.pages).toHaveLength(5);
    expect(maxActive).toBe(1);
  });

  it('scrapeOptions: each page answered as POST /v1/web/scrape answers it, links followed all the same', async () => {
    const { body, pages, credits } = await crawled({
      url: `${site.url}/list`,
      maxDepth: 1,
      scrapeOptions: { formats: ['markdown', 'html'] },
    });
    expect(pages.sort()).toEqual(['/list', '/list/1', '/list/2', '/list/3', '/list/4']);
    const list = body.pages.find((p: { url: string }) => p.url.endsWith('/list'));
    expect(list.markdown).toMatch(/^# List\n/);
    expect(list.html).toContain('<p>Text of List.</p>');
    expect(list).not.toHaveProperty('links');
    expect(list.metadata).toMatchObject({ title: 'List', statusCode: 200 });
    // 1 + 5 pages, no format with a price of its own.
    expect(credits).toBe(100 - 6);
  });

  it('scrapeOptions with a priced format: each page at its most is held, and what it cost is charged', async () => {
    const { apiKey } = await t.register();
    // A screenshot costs 1 more a page: 1 + 2 × limit is held.
    const held = await start(apiKey, {
      url: `${site.url}/list`,
      limit: 3,
      scrapeOptions: { formats: ['markdown', 'screenshot'], render: 'never' },
    });
    expect(held.statusCode).toBe(400);
    expect(held.json().message).toContain("'scrapeOptions.render'");
    const shots = await start(apiKey, {
      url: `${site.url}/list`,
      limit: 3,
      scrapeOptions: { formats: ['markdown', 'screenshot'] },
    });
    expect(shots.statusCode, shots.body).toBe(202);
    expect(shots.headers['x-credits-held']).toBe('7');
    await t.call(apiKey, { method: 'POST', url: `/v1/jobs/${shots.json().jobId}/cancel` });
    // No language model on this server: a crawl that needs one is refused at once, nothing held.
    const model = await start(apiKey, {
      url: `${site.url}/list`,
      limit: 3,
      scrapeOptions: { formats: ['markdown', { type: 'json', prompt: 'x' }] },
    });
    expect(model.statusCode, model.body).toBe(503);
    expect(model.json().error).toBe('provider_unavailable');
  });

  it('crawlEntireDomain is entireDomain by its Firecrawl name', async () => {
    const { pages } = await crawled({ url: `${site.url}/shop`, maxDepth: 1, crawlEntireDomain: true });
    expect(pages).toContain('/about');
    const both = await crawled({
      url: `${site.url}/shop`,
      maxDepth: 1,
      crawlEntireDomain: true,
      entireDomain: true,
    });
    expect(both.pages).toContain('/about');
  });

  it('refuses bad options with 400 naming them, holding nothing', async () => {
    const { apiKey } = await t.register();
    const url = `${site.url}/shop`;
    for (const [payload, param] of [
      [{ url, crawlEntireDomain: true, entireDomain: false }, 'crawlEntireDomain'],
      [{ url, crawlEntireDomain: 'yes' }, 'crawlEntireDomain'],
      [{ url, sitemap: 'sometimes' }, 'sitemap'],
      [{ url, ignoreQueryParameters: 'no' }, 'ignoreQueryParameters'],
      [{ url, deduplicateSimilarURLs: 'maybe' }, 'deduplicateSimilarURLs'],
      [{ url, delay: -1 }, 'delay'],
      [{ url, delay: 61 }, 'delay'],
      [{ url, delay: 'slow' }, 'delay'],
      // 60 s × 51 pages is more than a crawl's 3000 s; the default limit (100) allows 30 s.
      [{ url, delay: 60, limit: 51 }, 'delay'],
      [{ url, delay: 30.5 }, 'delay'],
      [{ url, maxConcurrency: 0 }, 'maxConcurrency'],
      [{ url, maxConcurrency: 1.5 }, 'maxConcurrency'],
      [{ url, maxConcurrency: 257 }, 'maxConcurrency'],
      // Above this server's UNFURL_CRAWL_CONCURRENCY (8).
      [{ url, maxConcurrency: 9 }, 'maxConcurrency'],
      [{ url, scrapeOptions: { formats: ['pdf'] } }, 'scrapeOptions.formats'],
      [{ url, scrapeOptions: { includeTags: ['a['] } }, 'scrapeOptions.includeTags[0]'],
    ] as const) {
      const res = await start(apiKey, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().message, JSON.stringify(payload)).toContain(param);
    }
    expect((await start(apiKey, { url, delay: 60, limit: 50, maxDepth: 0 })).statusCode).toBe(202);
    const jobs = (await t.call(apiKey, { method: 'GET', url: '/v1/jobs' })).json();
    expect(jobs.total).toBe(1);
  });
});
