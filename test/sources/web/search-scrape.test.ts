// POST /v1/web/search with scrapeOptions: each result's page scraped with the options of
// POST /v1/web/scrape, in result order; a page that fails keeps its result with the failure and is
// not billed. A stand-in SearXNG answers results that point at a loopback site.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { type Loopback, startServer } from '../../support/loopback.js';

let site: Loopback;
let searxng: Loopback;
let t: TestApp;

beforeAll(async () => {
  site = await startServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/missing') return res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>no</h1>');
    const name = path.slice(1);
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        `<html><head><title>${name}</title></head><body><h1>${name}</h1><p>About ${name}.</p></body></html>`,
      );
  });
  searxng = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const result = (path: string, title: string) => ({
      url: `${site.url}${path}`,
      title,
      content: `Snippet of ${title}`,
      engine: 'brave',
      engines: ['brave'],
      score: 1,
      category: 'general',
      publishedDate: null,
    });
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        query: url.searchParams.get('q'),
        results: [result('/alpha', 'Alpha'), result('/missing', 'Gone'), result('/beta', 'Beta')],
        answers: [],
        corrections: [],
        infoboxes: [],
        suggestions: [],
        unresponsive_engines: [],
      }),
    );
  });
  t = await createTestApp({ UNFURL_SEARXNG_URL: searxng.url, UNFURL_ALLOW_PRIVATE_NETWORK: 'true' });
});

afterAll(async () => {
  await t?.close();
  await Promise.all([site?.close(), searxng?.close()]);
});

describe('POST /v1/web/search with scrapeOptions', () => {
  it('scrapes each result in order, billing the search and the pages scraped', async () => {
    const { apiKey } = await t.register();
    const res = await t.call(apiKey, {
      method: 'POST',
      url: '/v1/web/search',
      payload: { query: 'greek letters', limit: 5, scrapeOptions: { formats: ['markdown', 'links'] } },
    });
    expect(res.statusCode, res.body).toBe(200);
    const { results } = res.json();
    expect(results.map((r: { title: string }) => r.title)).toEqual(['Alpha', 'Gone', 'Beta']);
    expect(results[0].document.markdown).toBe('# alpha\n\nAbout alpha.');
    expect(results[0].document.links).toEqual([]);
    expect(results[2].document.metadata.title).toBe('beta');
    expect(results[1]).not.toHaveProperty('document');
    expect(results[1].scrapeError).toMatchObject({ error: 'not_found' });
    // 1 for the search + 1 for each of the two pages scraped.
    expect(res.headers['x-credits-charged']).toBe('3');
    const account = (await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json();
    expect(account.credits).toBe(97);
  });

  it('refuses scrapeOptions that need the language model on a server without one (503), nothing charged', async () => {
    const { apiKey } = await t.register();
    const res = await t.call(apiKey, {
      method: 'POST',
      url: '/v1/web/search',
      payload: { query: 'x', scrapeOptions: { formats: ['summary'] } },
    });
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json().error).toBe('provider_unavailable');
    expect(res.json().message).toContain('UNFURL_AI_BASE_URL');
    const account = (await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json();
    expect(account.credits).toBe(100);
  });

  it('checks the scrape options before searching, naming them', async () => {
    const { apiKey } = await t.register();
    const res = await t.call(apiKey, {
      method: 'POST',
      url: '/v1/web/search',
      payload: { query: 'x', scrapeOptions: { excludeTags: ['p['] } },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain("'scrapeOptions.excludeTags[0]'");
  });
});
