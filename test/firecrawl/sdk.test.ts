// Firecrawl's own JavaScript SDK (@mendable/firecrawl-js 4.42.0), unchanged, against a real Unfurl on
// a loopback socket with only `apiUrl` set and an Unfurl API key as its key: scrape in each format,
// map, credit usage, the features Unfurl does not have, and its error handling. The outside world is
// a loopback site and a stand-in AI provider speaking OpenAI's protocol.
import type { AddressInfo } from 'node:net';
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientTestServer, startClientTestServer } from '../sdk/server.js';
import { createTestApp } from '../support/app.js';
import { describeWithChromium } from '../support/chromium.js';
import { accountWithBalance } from '../support/ledger-state.js';
import { type Loopback, startServer } from '../support/loopback.js';
import { type OpenAiServer, startOpenAiServer } from '../support/openai-server.js';
import { closeTestApp } from '../support/teardown.js';

let s: ClientTestServer;
let ai: OpenAiServer;
let searxng: Loopback;
let apiKey: string;
let firecrawl: Firecrawl;

beforeAll(async () => {
  ai = await startOpenAiServer();
  ai.chat = (call) => {
    if (call.body.response_format?.type === 'json_schema') {
      // The page's own number, read from the Markdown the model is given.
      const n = Number(/page number (\d+)/.exec(JSON.stringify(call.body.messages))?.[1]);
      return JSON.stringify({ title: `Page ${n}`, number: n, pages: [n] });
    }
    return 'A page of the documentation, number three.';
  };
  // A stand-in SearXNG answering its JSON API's shape, its results on the loopback site.
  searxng = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const result = (path: string, title: string, category = 'general') => ({
      url: `${s.site.url}${path}`,
      title,
      content: `Snippet of ${title}`,
      engine: 'brave',
      engines: ['brave'],
      score: 1,
      category,
      publishedDate: null,
    });
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        query: url.searchParams.get('q'),
        results: [result('/docs/p/8', 'Page eight'), result('/docs/p/9', 'Page nine', 'news')],
        answers: [],
        corrections: [],
        infoboxes: [],
        suggestions: [],
        unresponsive_engines: [],
      }),
    );
  });
  s = await startClientTestServer(
    { UNFURL_AI_BASE_URL: ai.baseUrl, UNFURL_AI_API_KEY: 'sk-test-key', UNFURL_SEARXNG_URL: searxng.url },
    { publicUrlIsSelf: true },
  );
  let accountId: string;
  ({ apiKey, accountId } = await s.t.register());
  await s.t.services.ledger.grant(accountId, 1000, 'test: crawls');
  firecrawl = new Firecrawl({ apiKey, apiUrl: s.url });
});
afterAll(async () => {
  await s?.close();
  await ai?.close();
  await searxng?.close();
});

async function credits(key = apiKey): Promise<number> {
  return (await s.t.call(key, { method: 'GET', url: '/v1/account' })).json().credits;
}

/** The error the SDK throws, with its status. */
async function failure(work: Promise<unknown>): Promise<{ status?: number; message: string; code?: string }> {
  const err = (await work.then(
    () => null,
    (e: unknown) => e,
  )) as { status?: number; message: string; code?: string } | null;
  expect(err, 'the call should have failed').not.toBeNull();
  return err!;
}

describe('@mendable/firecrawl-js against Unfurl, apiUrl only', () => {
  it('scrape: markdown, html, rawHtml, links and images, with Firecrawl metadata, at our price', async () => {
    const before = await credits();
    const doc = await firecrawl.scrape(`${s.site.url}/docs/p/1`, {
      formats: ['markdown', 'html', 'rawHtml', 'links', 'images'],
    });
    expect(doc.markdown).toContain('Text of page number 1');
    expect(doc.html).toContain('Text of page number 1');
    expect(doc.rawHtml).toContain('<title>Page 1</title>');
    expect(Array.isArray(doc.links)).toBe(true);
    expect(Array.isArray(doc.images)).toBe(true);
    expect(doc.metadata).toMatchObject({
      title: 'Page 1',
      description: 'About Page 1',
      sourceURL: `${s.site.url}/docs/p/1`,
      url: `${s.site.url}/docs/p/1`,
      statusCode: 200,
      creditsUsed: 1,
    });
    expect(await credits()).toBe(before - 1);
  });

  it('scrape: json by a schema and a summary through the AI provider (2 credits each)', async () => {
    const before = await credits();
    const doc = await firecrawl.scrape(`${s.site.url}/docs/p/3`, {
      formats: [
        {
          type: 'json',
          prompt: 'The title and number',
          schema: { type: 'object', properties: { title: { type: 'string' }, number: { type: 'integer' } } },
        },
        'summary',
      ],
    });
    expect(doc.json).toEqual({ title: 'Page 3', number: 3, pages: [3] });
    expect(doc.summary).toBe('A page of the documentation, number three.');
    expect(await credits()).toBe(before - 5);
  });

  it('scrape: a format Unfurl does not make is a 400 naming it, and costs nothing', async () => {
    const before = await credits();
    const err = await failure(firecrawl.scrape(`${s.site.url}/docs/p/1`, { formats: ['branding'] }));
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/formats\[0\].*branding format is not offered/);
    expect(await credits()).toBe(before);
  });

  it('map: the links of a site, ranked by search, as {url} objects', async () => {
    const before = await credits();
    const map = await firecrawl.map(`${s.site.url}/docs`, { search: 'p 7', sitemap: 'skip', limit: 20 });
    expect(map.links.length).toBeGreaterThan(0);
    expect(map.links.length).toBeLessThanOrEqual(20);
    expect(map.links[0]).toEqual({ url: `${s.site.url}/docs/p/7` });
    expect(await credits()).toBe(before - 1);
  });

  it('crawl with its waiter: every page, read across `next`, at our price', async () => {
    const before = await credits();
    const job = await firecrawl.crawl(`${s.site.url}/docs`, {
      limit: 110,
      sitemap: 'skip',
      scrapeOptions: { formats: ['markdown', 'links'] },
      pollInterval: 1,
      timeout: 60,
    });
    expect(job.status).toBe('completed');
    expect(job.data).toHaveLength(110); // 100 in the first answer, the rest through `next`
    expect(job.completed).toBe(110);
    const page = job.data.find((d) => d.metadata?.sourceURL === `${s.site.url}/docs/p/5`);
    expect(page?.markdown).toContain('Text of page number 5');
    expect(Array.isArray(page?.links)).toBe(true);
    expect(job.creditsUsed).toBe(111);
    expect(await credits()).toBe(before - 111);
    expect(await firecrawl.getCrawlErrors(job.id)).toEqual({ errors: [], robotsBlocked: [] });
  });

  it('crawl start, status, active crawls and cancel', async () => {
    // One request every 5 s: still running when it is cancelled.
    const started = await firecrawl.startCrawl(`${s.site.url}/docs`, { limit: 5, delay: 5, sitemap: 'skip' });
    expect(started.id).toMatch(/^job_/);
    const active = await firecrawl.getActiveCrawls();
    expect(active.crawls.map((c) => c.id)).toContain(started.id);
    expect(active.crawls.find((c) => c.id === started.id)?.url).toBe(`${s.site.url}/docs`);
    const status = await firecrawl.getCrawlStatus(started.id);
    expect(status.status).toBe('scraping');
    expect(await firecrawl.cancelCrawl(started.id)).toBe(true);
    expect((await firecrawl.getCrawlStatus(started.id)).status).toBe('cancelled');
    const other = await s.t.register();
    const stranger = new Firecrawl({ apiKey: other.apiKey, apiUrl: s.url });
    expect((await failure(stranger.getCrawlStatus(started.id))).status).toBe(404);
  });

  it('batch scrape with its waiter; invalid URLs reported, not fetched', async () => {
    const before = await credits();
    const job = await firecrawl.batchScrape(
      [`${s.site.url}/docs/p/1`, `${s.site.url}/docs/p/2`, 'ftp://example.com/x', `${s.site.url}/docs/p/1`],
      { options: { formats: ['markdown'] }, pollInterval: 1, timeout: 60 },
    );
    expect(job.status).toBe('completed');
    expect(job.data.map((d) => d.metadata?.sourceURL).sort()).toEqual([
      `${s.site.url}/docs/p/1`,
      `${s.site.url}/docs/p/2`,
    ]);
    expect(job.data[0]?.markdown).toContain('Text of page number');
    expect(job.creditsUsed).toBe(3);
    expect(await credits()).toBe(before - 3);
    const started = await firecrawl.startBatchScrape([`${s.site.url}/docs/p/3`, 'not a url']);
    expect(started.invalidURLs).toEqual(['not a url']);
    const errors = await firecrawl.getBatchScrapeErrors(started.id);
    expect(errors.robotsBlocked).toEqual([]);
    expect(Array.isArray(errors.errors)).toBe(true);
  });

  it('search through SearXNG: web and news results, each page scraped when asked', async () => {
    const before = await credits();
    const plain = await firecrawl.search('documentation pages', { limit: 5 });
    expect(plain.web).toEqual([
      { url: `${s.site.url}/docs/p/8`, title: 'Page eight', description: 'Snippet of Page eight' },
    ]);
    expect(plain.news).toEqual([
      { url: `${s.site.url}/docs/p/9`, title: 'Page nine', description: 'Snippet of Page nine' },
    ]);
    expect(await credits()).toBe(before - 1);
    const scraped = await firecrawl.search('documentation pages', {
      limit: 5,
      scrapeOptions: { formats: ['markdown'] },
    });
    const first = scraped.web?.[0] as { url: string; markdown?: string; metadata?: { statusCode?: number } };
    expect(first.url).toBe(`${s.site.url}/docs/p/8`);
    expect(first.markdown).toContain('Text of page number 8');
    expect(first.metadata?.statusCode).toBe(200);
    expect(await credits()).toBe(before - 1 - 3); // the search and two pages
  });

  it('extract with its waiter: one answer from the pages, lists joined', async () => {
    const before = await credits();
    const done = await firecrawl.extract({
      urls: [`${s.site.url}/docs/p/4`, `${s.site.url}/docs/p/5`],
      prompt: 'The page title, its number, and the numbers of the pages',
      schema: {
        type: 'object',
        properties: { title: { type: 'string' }, number: { type: 'integer' }, pages: { type: 'array' } },
      },
      pollInterval: 1,
      timeout: 60,
    });
    expect(done.status).toBe('completed');
    expect(done.data).toEqual({ title: 'Page 4', number: 4, pages: [4, 5] });
    expect(await credits()).toBe(before - 7); // the batch, and each page with its json
    const err = await failure(
      firecrawl.extract({ urls: [`${s.site.url}/docs/*`], prompt: 'Everything', pollInterval: 1 }),
    );
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/urls\[0\].*wildcards/);
  });

  it('credit usage answers our balance', async () => {
    const usage = await firecrawl.getCreditUsage();
    expect(usage.remainingCredits).toBe(await credits());
    expect(usage.planCredits).toBeGreaterThanOrEqual(usage.remainingCredits);
    expect(usage.billingPeriodStart).toMatch(/^\d{4}-\d{2}-01T00:00:00/);
  });

  it('what Unfurl does not have is a clear error naming it, never a 404', async () => {
    const agent = await failure(firecrawl.startAgent({ prompt: 'Find the pricing page' }));
    expect(agent.status).toBe(400);
    expect(agent.message).toMatch(/Unfurl does not offer the hosted agent/);
    const browser = await failure(firecrawl.browser());
    expect(browser.status).toBe(400);
    expect(browser.message).toMatch(/browser sessions/);
  });

  it('errors: a bad key is 401, an empty balance 402, both as Firecrawl errors', async () => {
    const stranger = new Firecrawl({ apiKey: 'uf_not_a_key_at_all', apiUrl: s.url });
    const unauthorized = await failure(stranger.scrape(`${s.site.url}/docs/p/1`));
    expect(unauthorized.status).toBe(401);
    const { apiKey: poorKey } = await accountWithBalance(s.t, 0);
    const poor = new Firecrawl({ apiKey: poorKey, apiUrl: s.url });
    const payment = await failure(poor.scrape(`${s.site.url}/docs/p/1`));
    expect(payment.status).toBe(402);
    expect(payment.message).toMatch(/credit/i);
  });
});

describeWithChromium('@mendable/firecrawl-js: rendered formats', () => {
  it('scrape: a screenshot, stored and served to the same key', async () => {
    const doc = await firecrawl.scrape(`${s.site.url}/docs/p/2`, { formats: ['screenshot'] });
    expect(doc.screenshot).toMatch(/\/v1\/files\//);
    const file = await s.t.call(apiKey, { method: 'GET', url: new URL(doc.screenshot!).pathname });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
  });
});

describe('@mendable/firecrawl-js: rate limits', () => {
  it('a key past its rate is a 429 the SDK reports, with Retry-After', async () => {
    const t = await createTestApp({ UNFURL_RATE_LIMIT_BURST: '2', UNFURL_RATE_LIMIT_RPS: '0.01' });
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      const { apiKey: key } = await t.register();
      const limited = new Firecrawl({ apiKey: key, apiUrl: url, maxRetries: 1 });
      await limited.getCreditUsage();
      await limited.getCreditUsage();
      const err = await failure(limited.getCreditUsage());
      expect(err.status).toBe(429);
      expect(err.code).toBe('rate_limited');
      const raw = await fetch(`${url}/v2/team/credit-usage`, { headers: { authorization: `Bearer ${key}` } });
      expect(raw.status).toBe(429);
      expect(Number(raw.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await raw.json()).toMatchObject({ success: false, code: 'rate_limited' });
    } finally {
      await closeTestApp(t);
    }
  });
});
