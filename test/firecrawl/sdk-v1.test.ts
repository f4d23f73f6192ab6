// Firecrawl's v1 client (`FirecrawlAppV1`, exported by @mendable/firecrawl-js 4.42.0), unchanged, for
// the integrations still on it: scrape, map, crawl with its waiter (paged with `next`), crawl
// status and cancel, batch scrape and search, against a real Unfurl on a loopback socket.
import { FirecrawlAppV1 } from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientTestServer, startClientTestServer } from '../sdk/server.js';
import { type Loopback, startServer } from '../support/loopback.js';

let s: ClientTestServer;
let searxng: Loopback;
let apiKey: string;
let app: FirecrawlAppV1;

beforeAll(async () => {
  searxng = await startServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams.get('q');
    const result = {
      url: `${s.site.url}/docs/p/8`,
      title: 'Page eight',
      content: 'Snippet',
      category: 'general',
    };
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ query: q, results: [result], answers: [], suggestions: [], corrections: [] }));
  });
  s = await startClientTestServer({ UNFURL_SEARXNG_URL: searxng.url }, { publicUrlIsSelf: true });
  let accountId: string;
  ({ apiKey, accountId } = await s.t.register());
  await s.t.services.ledger.grant(accountId, 500, 'test: crawls');
  app = new FirecrawlAppV1({ apiKey, apiUrl: s.url });
});
afterAll(async () => {
  await s?.close();
  await searxng?.close();
});

async function credits(): Promise<number> {
  return (await s.t.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits;
}

describe('FirecrawlAppV1 against Unfurl, apiUrl only', () => {
  it('scrapeUrl: markdown, html and links, at our price', async () => {
    const before = await credits();
    const doc = await app.scrapeUrl(`${s.site.url}/docs/p/1`, { formats: ['markdown', 'html', 'links'] });
    expect(doc.success).toBe(true);
    if (!doc.success) return;
    expect(doc.markdown).toContain('Text of page number 1');
    expect(doc.html).toContain('Text of page number 1');
    expect(Array.isArray(doc.links)).toBe(true);
    expect(doc.metadata).toMatchObject({
      title: 'Page 1',
      sourceURL: `${s.site.url}/docs/p/1`,
      statusCode: 200,
    });
    expect(await credits()).toBe(before - 1);
  });

  it('mapUrl: the links as strings', async () => {
    const map = await app.mapUrl(`${s.site.url}/docs`, { ignoreSitemap: true, limit: 10 });
    expect(map.success).toBe(true);
    if (!map.success) return;
    expect(map.links).toHaveLength(10);
    expect(map.links?.every((l) => typeof l === 'string')).toBe(true);
  });

  it('crawlUrl with its waiter: every page, across `next`', async () => {
    const before = await credits();
    const job = await app.crawlUrl(
      `${s.site.url}/docs`,
      { limit: 105, ignoreSitemap: true, scrapeOptions: { formats: ['markdown'] } },
      1,
    );
    expect(job.success).toBe(true);
    if (!job.success) return;
    expect(job.status).toBe('completed');
    expect(job.data).toHaveLength(105);
    expect(job.data.every((d) => typeof d.markdown === 'string')).toBe(true);
    expect(await credits()).toBe(before - 106);
  });

  it('asyncCrawlUrl, checkCrawlStatus and cancelCrawl', async () => {
    const started = await app.asyncCrawlUrl(`${s.site.url}/docs`, {
      limit: 5,
      delay: 5,
      ignoreSitemap: true,
    });
    expect(started.success).toBe(true);
    if (!started.success) return;
    const status = await app.checkCrawlStatus(started.id!);
    expect(status.success && status.status).toBe('scraping');
    const cancelled = await app.cancelCrawl(started.id!);
    expect(cancelled).toMatchObject({ success: true, status: 'cancelled' });
    const errors = await app.checkCrawlErrors(started.id!);
    expect(errors).toMatchObject({ success: true, robotsBlocked: [] });
  });

  it('batchScrapeUrls with its waiter', async () => {
    const job = await app.batchScrapeUrls(
      [`${s.site.url}/docs/p/2`, `${s.site.url}/docs/p/3`],
      { formats: ['markdown'] },
      1,
    );
    expect(job.success).toBe(true);
    if (!job.success) return;
    expect(job.status).toBe('completed');
    expect(job.data.map((d) => d.metadata?.sourceURL).sort()).toEqual([
      `${s.site.url}/docs/p/2`,
      `${s.site.url}/docs/p/3`,
    ]);
  });

  it('search: one list of results', async () => {
    const found = await app.search('documentation', { limit: 3 });
    expect(found.success).toBe(true);
    expect(found.data).toEqual([
      { url: `${s.site.url}/docs/p/8`, title: 'Page eight', description: 'Snippet' },
    ]);
  });
});
