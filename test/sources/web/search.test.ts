// POST /v1/web/search end to end: a real app on a fresh database, searching through a loopback
// stand-in for SearXNG that answers its JSON API's real shape (searx/webutils.py get_json_response:
// MainResult fields, parsed_url, positions, legacy answers, unresponsive engines as [name, text]). The
// app keeps the caller SSRF policy (no UNFURL_ALLOW_PRIVATE_NETWORK): the operator's SearXNG on loopback
// is still reached.
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SafeFetcher } from '../../../src/net/safe-fetch.js';
import { WebSearch } from '../../../src/sources/web/search.js';
import { parseSearxngAnswer, searxngParams } from '../../../src/sources/web/search-parse.js';
import { scrapeResults } from '../../../src/sources/web/search-scrape.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { type Loopback, startServer } from '../../support/loopback.js';

/** What SearXNG 2025.x answers to `q=rust async runtime&format=json` (abridged, fields as it sends them). */
const SEARXNG_ANSWER = {
  query: 'rust async runtime',
  number_of_results: 0,
  results: [
    {
      url: 'https://tokio.rs/',
      title: 'Tokio - An asynchronous Rust runtime',
      content: 'Tokio is an asynchronous runtime for the Rust programming language.',
      engine: 'duckduckgo',
      template: 'default.html',
      parsed_url: ['https', 'tokio.rs', '/', '', '', ''],
      img_src: '',
      thumbnail: '',
      priority: '',
      engines: ['duckduckgo', 'brave', 'startpage'],
      positions: [1, 1, 2],
      score: 9.0,
      category: 'general',
      publishedDate: null,
      pubdate: '',
    },
    {
      // The same page over http from another engine: merged into the first.
      url: 'http://tokio.rs/#top',
      title: 'Tokio',
      content: '',
      engine: 'mojeek',
      template: 'default.html',
      parsed_url: ['http', 'tokio.rs', '/', '', '', 'top'],
      engines: ['mojeek'],
      positions: [4],
      score: 0.25,
      category: 'general',
      publishedDate: null,
    },
    {
      url: 'https://rust-lang.github.io/async-book/',
      title: 'Asynchronous Programming in Rust',
      content: '  The async book:   what async/.await is and how it works.  ',
      engine: 'brave',
      template: 'default.html',
      parsed_url: ['https', 'rust-lang.github.io', '/async-book/', '', '', ''],
      img_src: '',
      thumbnail: 'https://imgs.search.brave.com/abc/rs:fit:200:200:1/g:ce/aHR0cHM.jpg',
      engines: ['brave'],
      positions: [2],
      score: 0.5,
      category: 'general',
      publishedDate: '2024-03-11T00:00:00',
      pubdate: '2024-03-11 00:00:00',
    },
    {
      // Not a web page: dropped.
      url: 'magnet:?xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a',
      title: 'rust async runtime [torrent]',
      content: '',
      engine: 'piratebay',
      template: 'torrent.html',
      parsed_url: ['magnet', '', '', '', 'xt=urn:btih:c12f', ''],
      engines: ['piratebay'],
      positions: [1],
      score: 1,
      category: 'files',
      publishedDate: null,
      seed: 3,
      leech: 0,
    },
    {
      url: 'https://news.example.org/smol-2-0',
      title: 'smol 2.0 released',
      content: 'A small and fast async runtime.',
      engine: 'bing news',
      template: 'default.html',
      parsed_url: ['https', 'news.example.org', '/smol-2-0', '', '', ''],
      // An image-proxy path relative to SearXNG: not a URL the caller can use.
      thumbnail: '/image_proxy?url=https%3A%2F%2Fnews.example.org%2Fsmol.png&h=abc',
      img_src: 'data:image/png;base64,iVBORw0KGgo=',
      engines: ['bing news'],
      positions: [3],
      score: 0.33,
      category: 'news',
      publishedDate: '2025-06-01T09:30:00+00:00',
    },
    {
      url: 'https://docs.rs/async-std/',
      title: 'async_std - Rust',
      content: 'Async version of the Rust standard library.',
      engine: 'google',
      template: 'default.html',
      parsed_url: ['https', 'docs.rs', '/async-std/', '', '', ''],
      engines: ['google'],
      positions: [5],
      score: 0.2,
      category: 'general',
      publishedDate: 'not a date',
    },
  ],
  answers: [
    {
      url: 'https://en.wikipedia.org/wiki/Async/await',
      template: 'answer/legacy.html',
      engine: 'wikipedia',
      parsed_url: ['https', 'en.wikipedia.org', '/wiki/Async/await', '', '', ''],
      answer: 'async/await is a syntactic pattern for non-blocking functions.',
    },
    // A weather answer has no text of its own: left out.
    { template: 'answer/weather.html', engine: 'wttr.in', current: {}, forecasts: [], service: 'wttr.in' },
  ],
  corrections: [],
  infoboxes: [
    {
      infobox: 'Rust',
      id: 'https://www.wikidata.org/wiki/Q575650',
      content: 'Rust is a multi-paradigm programming language.',
      urls: [{ title: 'Official website', url: 'https://www.rust-lang.org/' }],
      engine: 'wikidata',
      engines: ['wikidata'],
    },
  ],
  suggestions: ['rust tokio', 'rust async-std', 'rust smol'],
  unresponsive_engines: [
    ['google', 'timeout'],
    ['qwant', 'Suspended: too many requests'],
  ],
};

type Mode = 'ok' | 'forbidden' | 'error' | 'html' | 'slow' | 'busy' | 'not-searxng';

let mode: Mode = 'ok';
const seen: Array<{ path: string; params: URLSearchParams; authorization: string | undefined }> = [];
let searxng: Loopback;
let t: TestApp;
let bare: TestApp;
let key: string;

function serveSearxng(req: http.IncomingMessage, res: http.ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://x');
  seen.push({ path: url.pathname, params: url.searchParams, authorization: req.headers.authorization });
  const json = (status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  switch (mode) {
    case 'ok':
      return json(200, SEARXNG_ANSWER);
    case 'forbidden':
      // What SearXNG answers when `json` is not in search.formats (flask.abort(403)).
      return res
        .writeHead(403, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          "<!doctype html>\n<title>403 Forbidden</title>\n<h1>Forbidden</h1>\n<p>You don't have the permission to access the requested resource.</p>",
        );
    case 'error':
      return json(500, { error: 'search error' });
    case 'html':
      return res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>SearXNG</title>');
    case 'busy':
      return res
        .writeHead(429, { 'content-type': 'text/plain', 'retry-after': '7' })
        .end('Too Many Requests');
    case 'not-searxng':
      return json(200, { status: 'ok' });
    case 'slow':
      setTimeout(() => json(200, SEARXNG_ANSWER), 1500).unref();
      return;
  }
}

beforeAll(async () => {
  searxng = await startServer(serveSearxng);
  // Credentials and a path prefix, as behind a reverse proxy with Basic authentication.
  const base = `http://searx:s%40cret@127.0.0.1:${searxng.port}/searxng/`;
  [t, bare] = await Promise.all([
    createTestApp({ UNFURL_SEARXNG_URL: base, UNFURL_SEARXNG_TIMEOUT_MS: '500' }),
    createTestApp(),
  ]);
  key = (await t.register()).apiKey;
});

afterAll(async () => {
  await Promise.all([t?.close(), bare?.close()]);
  await searxng?.close();
});

const search = (body: unknown, app = t, apiKey = key) =>
  app.call(apiKey, { method: 'POST', url: '/v1/web/search', payload: body as object });
const balance = async (app = t, apiKey = key) =>
  (await app.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits as number;

describe('POST /v1/web/search', () => {
  it("answers SearXNG's results: each page once, http(s) only, for 1 credit", async () => {
    mode = 'ok';
    seen.length = 0;
    const before = await balance();
    const res = await search({ query: 'rust async runtime' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(Number(res.headers['x-credits-remaining'])).toBe(before - 1);
    expect(await balance()).toBe(before - 1);
    expect(res.json()).toEqual({
      query: 'rust async runtime',
      results: [
        {
          url: 'https://tokio.rs/',
          title: 'Tokio - An asynchronous Rust runtime',
          description: 'Tokio is an asynchronous runtime for the Rust programming language.',
          engines: ['duckduckgo', 'brave', 'startpage', 'mojeek'],
          category: 'general',
          publishedDate: null,
          thumbnail: null,
          imageUrl: null,
        },
        {
          url: 'https://rust-lang.github.io/async-book/',
          title: 'Asynchronous Programming in Rust',
          description: 'The async book:   what async/.await is and how it works.',
          engines: ['brave'],
          category: 'general',
          publishedDate: '2024-03-11T00:00:00',
          thumbnail: 'https://imgs.search.brave.com/abc/rs:fit:200:200:1/g:ce/aHR0cHM.jpg',
          imageUrl: null,
        },
        {
          url: 'https://news.example.org/smol-2-0',
          title: 'smol 2.0 released',
          description: 'A small and fast async runtime.',
          engines: ['bing news'],
          category: 'news',
          publishedDate: '2025-06-01T09:30:00+00:00',
          thumbnail: null,
          imageUrl: null,
        },
        {
          url: 'https://docs.rs/async-std/',
          title: 'async_std - Rust',
          description: 'Async version of the Rust standard library.',
          engines: ['google'],
          category: 'general',
          publishedDate: null,
          thumbnail: null,
          imageUrl: null,
        },
      ],
      answers: ['async/await is a syntactic pattern for non-blocking functions.'],
      suggestions: ['rust tokio', 'rust async-std', 'rust smol'],
      corrections: [],
      unresponsiveEngines: [
        { engine: 'google', error: 'timeout' },
        { engine: 'qwant', error: 'Suspended: too many requests' },
      ],
    });
    // One GET of the JSON API under the base URL's path, the URL's credentials as Basic auth.
    expect(seen).toHaveLength(1);
    expect(seen[0]!.path).toBe('/searxng/search');
    expect(Object.fromEntries(seen[0]!.params)).toEqual({ q: 'rust async runtime', format: 'json' });
    expect(seen[0]!.authorization).toBe(`Basic ${Buffer.from('searx:s@cret').toString('base64')}`);
  });

  it('sends the language with its region, the time range, the categories and the page; keeps `limit`', async () => {
    mode = 'ok';
    seen.length = 0;
    const res = await search({
      query: '  rust async runtime ',
      limit: 2,
      lang: 'en',
      country: 'gb',
      timeRange: 'week',
      categories: ['general', 'news'],
      page: 2,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().results.map((r: { url: string }) => r.url)).toEqual([
      'https://tokio.rs/',
      'https://rust-lang.github.io/async-book/',
    ]);
    expect(Object.fromEntries(seen[0]!.params)).toEqual({
      q: 'rust async runtime',
      language: 'en-GB',
      time_range: 'week',
      categories: 'general,news',
      pageno: '2',
      format: 'json',
    });
    seen.length = 0;
    await search({ query: 'x', lang: 'pt-BR' });
    await search({ query: 'x', lang: 'zh-Hans-CN', country: 'TW' });
    await search({ query: 'x', lang: 'DE' });
    expect(seen.map((s) => s.params.get('language'))).toEqual(['pt-BR', 'zh-TW', 'de']);
  });

  it.each([
    [{}, 'query', /Missing required body field 'query'/],
    [{ query: '' }, 'query', /'query'/],
    [{ query: '   ' }, 'query', /must not be blank/],
    [{ query: 'x'.repeat(501) }, 'query', /'query'/],
    [{ query: 'x', limit: 0 }, 'limit', /'limit'/],
    [{ query: 'x', limit: 51 }, 'limit', /'limit'/],
    [{ query: 'x', lang: 'english please' }, 'lang', /'lang'/],
    [{ query: 'x', lang: 'en', country: 'GBR' }, 'country', /'country'/],
    [{ query: 'x', country: 'GB' }, 'country', /needs lang/],
    [{ query: 'x', timeRange: 'hour' }, 'timeRange', /day, week, month, year/],
    [{ query: 'x', categories: ['maps'] }, 'categories.0', /general, news, images, videos, science, it/],
    [{ query: 'x', categories: [] }, 'categories', /'categories'/],
    [{ query: 'x', page: 0 }, 'page', /'page'/],
    [{ query: 'x', engines: ['google'] }, 'engines', /Unknown body field 'engines'/],
  ])('refuses %j with a 400 naming %s, charging nothing and asking nobody', async (body, param, message) => {
    seen.length = 0;
    const before = await balance();
    const res = await search(body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_request', details: param });
    expect(res.json().message).toMatch(message);
    expect(res.headers['x-credits-charged']).toBeUndefined();
    expect(await balance()).toBe(before);
    expect(seen).toHaveLength(0);
  });

  it.each([
    ['forbidden', 503, 'provider_unavailable', /HTTP 403.*json in search\.formats/],
    ['busy', 503, 'provider_unavailable', /is busy \(HTTP 429/],
    ['slow', 503, 'provider_unavailable', /did not answer within 500 ms/],
    ['error', 502, 'upstream_error', /failed \(HTTP 500: search error\)/],
    ['html', 502, 'upstream_error', /answered text\/html instead of JSON/],
    ['not-searxng', 502, 'upstream_error', /not a search answer: no results list/],
  ] as const)('SearXNG %s → %i %s, nothing charged', async (m, status, code, message) => {
    mode = m;
    const before = await balance();
    const res = await search({ query: 'rust' });
    expect(res.statusCode).toBe(status);
    expect(res.json()).toMatchObject({ error: code });
    expect(res.json().message).toMatch(message);
    expect(res.json().message).toMatch(/SearXNG/);
    if (m === 'busy') expect(res.headers['retry-after']).toBe('7');
    expect(res.headers['x-credits-charged']).toBeUndefined();
    expect(await balance()).toBe(before);
    mode = 'ok';
  });

  it('is 503 naming UNFURL_SEARXNG_URL where no SearXNG is configured, nothing held or charged', async () => {
    const { apiKey } = await bare.register();
    const before = await balance(bare, apiKey);
    const res = await search({ query: 'rust' }, bare, apiKey);
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ error: 'provider_unavailable', details: null });
    expect(res.json().message).toMatch(/UNFURL_SEARXNG_URL/);
    expect(res.headers['x-credits-charged']).toBeUndefined();
    expect(await balance(bare, apiKey)).toBe(before);
    // Validation still comes first.
    expect((await search({ query: '' }, bare, apiKey)).statusCode).toBe(400);
  });

  it('needs an API key', async () => {
    const res = await search({ query: 'rust' }, t, '');
    expect(res.statusCode).toBe(401);
  });

  it('is documented with its operationId and MCP tool', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const op = doc.paths['/v1/web/search'].post;
    expect(op.operationId).toBe('webSearch');
    expect(op['x-mcp-tool'].name).toBe('web_search');
  });
});

describe('the SearXNG client', () => {
  it('is 503 when SearXNG cannot be reached', async () => {
    const fetcher = new SafeFetcher({ allowPrivateNetwork: true });
    const closed = await startServer(() => {});
    const { port } = closed;
    await closed.close();
    const client = new WebSearch(fetcher, { baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 2000 });
    await expect(client.search({ query: 'x', limit: 10 })).rejects.toMatchObject({
      code: 'provider_unavailable',
      message: expect.stringMatching(/SearXNG, UNFURL_SEARXNG_URL\) could not be reached/),
    });
    await fetcher.close();
  });

  it('reads the answers of older releases (plain strings) and leaves out what has no http(s) URL', () => {
    const answer = parseSearxngAnswer(
      {
        query: 'q',
        number_of_results: 1200,
        results: [
          { url: 'ftp://files.example.com/a', title: 'a', engine: 'x' },
          { url: 'javascript:alert(1)', title: 'b' },
          { url: 'not a url', title: 'c' },
          { url: 'http://a.example/', engine: 'bing' },
          { url: 'https://a.example/#x', engine: 'yahoo', content: 'A.' },
          { title: 'no url' },
          null,
        ],
        answers: ['42', '42'],
        suggestions: ['', 'q2', 3],
        unresponsive_engines: [['wikipedia'], 'bad'],
      },
      { query: 'q', limit: 10 },
    );
    expect(answer).toEqual({
      query: 'q',
      results: [
        {
          url: 'https://a.example/',
          title: 'http://a.example/',
          description: 'A.',
          engines: ['bing', 'yahoo'],
          category: null,
          publishedDate: null,
          thumbnail: null,
          imageUrl: null,
        },
      ],
      answers: ['42'],
      suggestions: ['q2'],
      corrections: [],
      unresponsiveEngines: [{ engine: 'wikipedia', error: 'no answer' }],
    });
    expect(() => parseSearxngAnswer([], { query: 'q', limit: 1 })).toThrow(/not an object/);
  });

  it('sends only what was asked', () => {
    expect(searxngParams({ query: 'a b', limit: 5, page: 1, categories: ['it', 'it'] }).toString()).toBe(
      'q=a+b&categories=it',
    );
  });
});

describe('scrapeResults (the scrapeOptions hook)', () => {
  const result = (url: string) => ({
    url,
    title: url,
    description: '',
    engines: [],
    category: null,
    publishedDate: null,
    thumbnail: null,
    imageUrl: null,
  });

  it('scrapes each result a few at a time, in order, keeping a failed one with its error', async () => {
    let running = 0;
    let most = 0;
    const urls = ['https://a/', 'https://b/', 'https://c/', 'https://d/', 'https://e/'];
    const out = await scrapeResults(
      urls.map(result),
      async (url) => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, url === 'https://a/' ? 30 : 5));
        running--;
        if (url === 'https://c/') throw new Error('boom');
        return { markdown: `# ${url}` };
      },
      { concurrency: 2 },
    );
    expect(most).toBe(2);
    expect(out.map((r) => r.url)).toEqual(urls);
    expect(out[0]!.document).toEqual({ markdown: '# https://a/' });
    expect(out[2]).toMatchObject({
      url: 'https://c/',
      scrapeError: { error: 'internal_error', message: 'The page could not be scraped' },
    });
    expect(out[2]!.document).toBeUndefined();
  });
});
