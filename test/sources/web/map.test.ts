// GET /v1/web/map end to end: a real app on a fresh database, mapping loopback sites that play the
// web (a page with links, robots.txt Sitemap: lines, sitemap indexes, gzipped and broken sitemaps).
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SafeFetcher } from '../../../src/net/safe-fetch.js';
import { Upstreams } from '../../../src/net/upstream.js';
import { Mapper } from '../../../src/sources/web/mapper.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { type Loopback, startServer } from '../../support/loopback.js';

let t: TestApp;
let key: string;
/** Linked from its home page, with robots.txt naming its sitemap. */
let site: Loopback;
/** No robots.txt: its /sitemap.xml is an index pointing at a gzipped sitemap. */
let plain: Loopback;
/** Every sitemap source fails: robots.txt 500, /sitemap.xml not XML, /sitemap_index.xml missing. */
let broken: Loopback;
/** Links and a sitemap full of twins (queries, http/https, slashes, index files) and words to search. */
let shop: Loopback;
const hits: string[] = [];

const urlset = (...locs: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs
    .map((l) => `<url><loc>${l}</loc></url>`)
    .join('')}</urlset>`;

beforeAll(async () => {
  site = await startServer((req, res) => {
    hits.push(req.url ?? '');
    const b = site.url;
    switch (req.url) {
      case '/':
        return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<title>Home</title>
<nav><a href="/a#top">A</a> <a href="HTTP://127.0.0.1:${site.port}/a">A again</a> <a href="#main">skip</a></nav>
<main id="main"><a href="b?">B</a> <a href="https://Other.EXAMPLE:443/x">elsewhere</a>
<a href="mailto:me@example.com">mail</a> <a href="javascript:void(0)">js</a> <area href="/c"></main>`);
      case '/robots.txt':
        return res
          .writeHead(200, { 'content-type': 'text/plain' })
          .end(`User-agent: *\nDisallow: /d\nSitemap: ${b}/sm.xml\n`);
      case '/sm.xml':
        return res
          .writeHead(200, { 'content-type': 'application/xml' })
          .end(urlset(`${b}/b`, `${b}/d`, `${b}/e#frag`, `HTTP://127.0.0.1:${site.port}/f`));
      default:
        return res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
    }
  });
  plain = await startServer((req, res) => {
    const b = plain.url;
    if (req.url === '/')
      return res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<a href="/p">p</a><a href="/g2">g2</a>');
    if (req.url === '/sitemap.xml')
      return res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(`<sitemapindex><sitemap><loc>${b}/pages.xml.gz</loc></sitemap></sitemapindex>`);
    if (req.url === '/pages.xml.gz')
      return res
        .writeHead(200, { 'content-type': 'application/x-gzip' })
        .end(zlib.gzipSync(urlset(`${b}/g1`, `${b}/g2`, `${b}/g3`)));
    res.writeHead(404).end();
  });
  broken = await startServer((req, res) => {
    if (req.url === '/')
      return res.writeHead(200, { 'content-type': 'text/html' }).end('<a href="/only">o</a>');
    if (req.url === '/robots.txt') return res.writeHead(500).end();
    if (req.url === '/sitemap.xml')
      return res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Welcome!</h1>');
    res.writeHead(404).end();
  });
  shop = await startServer((req, res) => {
    const b = shop.url;
    const https = `https://127.0.0.1:${shop.port}`;
    if (req.url === '/')
      return res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Shop</title>
<a href="/item?id=1">Blue shoe</a> <a href="/item?id=2">Red shoe</a> <a href="/p/17">Our pricing</a>
<a href="/about/">About us</a> <a href="${https}/about">About (https)</a> <a href="/about/index.html">About again</a>
<a href="https://other.example/pricing">Their prices</a>`);
    if (req.url === '/sitemap.xml')
      return res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(
          urlset(
            `${b}/careers`,
            `${b}/item?id=3`,
            `${b}/docs/pricing-api`,
            `${https}/p/17/`,
            `${b}/pricing`,
            `${b}/blog/shoes-for-running`,
          ),
        );
    res.writeHead(404).end();
  });
  t = await createTestApp({ UNFURL_ALLOW_PRIVATE_NETWORK: 'true' });
  key = (await t.register()).apiKey;
});

afterAll(async () => {
  await t?.close();
  await Promise.all([site, plain, broken, shop].map((s) => s?.close()));
});

const map = (query: Record<string, string | number | boolean>) =>
  t.call(key, {
    method: 'GET',
    url: `/v1/web/map?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`,
  });
const balance = async () =>
  (await t.call(key, { method: 'GET', url: '/v1/account' })).json().credits as number;

describe('GET /v1/web/map', () => {
  it('lists the page links, then the sitemap URLs: normalised, deduplicated, for 1 credit', async () => {
    const before = await balance();
    const res = await map({ url: `${site.url}/` });
    expect(res.statusCode).toBe(200);
    const b = site.url;
    expect(res.json()).toEqual({
      urls: [`${b}/a`, `${b}/b`, 'https://other.example/x', `${b}/c`, `${b}/d`, `${b}/e`, `${b}/f`],
    });
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(Number(res.headers['x-credits-remaining'])).toBe(before - 1);
    expect(await balance()).toBe(before - 1);
  });

  it('sitemap=skip lists only the page links and reads no sitemap', async () => {
    hits.length = 0;
    const res = await map({ url: site.url, sitemap: 'skip' });
    expect(res.statusCode).toBe(200);
    expect(res.json().urls).toEqual([
      `${site.url}/a`,
      `${site.url}/b`,
      'https://other.example/x',
      `${site.url}/c`,
    ]);
    expect(hits).toEqual(['/']);
  });

  it('sitemap=only lists only the sitemap URLs and does not fetch the page', async () => {
    hits.length = 0;
    const res = await map({ url: `${site.url}/`, sitemap: 'only' });
    expect(res.statusCode).toBe(200);
    expect(res.json().urls).toEqual([`${site.url}/b`, `${site.url}/d`, `${site.url}/e`, `${site.url}/f`]);
    expect(hits).not.toContain('/');
  });

  it('cuts the list at limit, page links first', async () => {
    expect((await map({ url: site.url, limit: 2 })).json().urls).toEqual([`${site.url}/a`, `${site.url}/b`]);
    expect((await map({ url: site.url, limit: 5 })).json().urls).toEqual([
      `${site.url}/a`,
      `${site.url}/b`,
      'https://other.example/x',
      `${site.url}/c`,
      `${site.url}/d`,
    ]);
  });

  it('without robots.txt reads /sitemap.xml, following its index to a gzipped sitemap', async () => {
    const res = await map({ url: plain.url });
    expect(res.statusCode).toBe(200);
    const b = plain.url;
    expect(res.json().urls).toEqual([`${b}/p`, `${b}/g2`, `${b}/g1`, `${b}/g3`]);
  });

  it('still answers the page links when every sitemap source fails', async () => {
    const res = await map({ url: broken.url });
    expect(res.statusCode).toBe(200);
    expect(res.json().urls).toEqual([`${broken.url}/only`]);
    const only = await map({ url: broken.url, sitemap: 'only' });
    expect(only.statusCode).toBe(200);
    expect(only.json().urls).toEqual([]);
  });

  it('a missing start page is 404 not_found and costs nothing', async () => {
    const before = await balance();
    const res = await map({ url: `${site.url}/nowhere` });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('not_found');
    expect(res.headers['x-credits-charged']).toBeUndefined();
    expect(await balance()).toBe(before);
  });

  it('a failing start page fails at once and stops the sitemap fetches still running', async () => {
    let robotsClosed = false;
    const slow = await startServer((req, res) => {
      if (req.url === '/') return res.writeHead(410).end();
      // robots.txt never answers; its request ends only when we give it up
      req.on('close', () => {
        robotsClosed = true;
      });
    });
    try {
      const started = Date.now();
      const res = await map({ url: slow.url });
      expect(res.statusCode).toBe(404);
      expect(Date.now() - started).toBeLessThan(3000);
      await vi.waitFor(() => expect(robotsClosed).toBe(true), { timeout: 2000 });
    } finally {
      await slow.close();
    }
  });

  it('refuses bad parameters with 400 naming them', async () => {
    const before = await balance();
    for (const url of ['not a url', 'ftp://example.com/x', '']) {
      const res = await map({ url });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('invalid_request');
      expect(res.json().message).toMatch(/url/);
    }
    for (const limit of [0, 10_001, 'many']) {
      const res = await map({ url: site.url, limit });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toMatch(/limit/);
    }
    const res = await map({ url: site.url, sitemap: 'sometimes' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/sitemap/);
    expect(await balance()).toBe(before);
  });
});

describe('GET /v1/web/map options', () => {
  it('by default lists URLs without their query and twins once, in the first form found', async () => {
    const b = shop.url;
    const res = await map({ url: `${b}/` });
    expect(res.statusCode).toBe(200);
    expect(res.json().urls).toEqual([
      `${b}/item`,
      `${b}/p/17`,
      `${b}/about/`,
      'https://other.example/pricing',
      `${b}/careers`,
      `${b}/docs/pricing-api`,
      `${b}/pricing`,
      `${b}/blog/shoes-for-running`,
    ]);
  });

  it('ignoreQueryParameters=false and deduplicateSimilarURLs=false list each spelling', async () => {
    const b = shop.url;
    const https = `https://127.0.0.1:${shop.port}`;
    const res = await map({ url: `${b}/`, ignoreQueryParameters: false, deduplicateSimilarURLs: false });
    expect(res.json().urls).toEqual([
      `${b}/item?id=1`,
      `${b}/item?id=2`,
      `${b}/p/17`,
      `${b}/about/`,
      `${https}/about`,
      `${b}/about/index.html`,
      'https://other.example/pricing',
      `${b}/careers`,
      `${b}/item?id=3`,
      `${b}/docs/pricing-api`,
      `${https}/p/17/`,
      `${b}/pricing`,
      `${b}/blog/shoes-for-running`,
    ]);
  });

  it('includeSubdomains=false keeps only the start host; absent keeps every host', async () => {
    const res = await map({ url: `${shop.url}/`, includeSubdomains: false });
    expect(res.json().urls).not.toContain('https://other.example/pricing');
    expect(res.json().urls).toHaveLength(7);
    expect((await map({ url: `${shop.url}/` })).json().urls).toContain('https://other.example/pricing');
  });

  it('search ranks the matches first (URL words and link texts), the rest after, then cuts at limit', async () => {
    const b = shop.url;
    const res = await map({ url: `${b}/`, search: 'Pricing' });
    expect(res.statusCode).toBe(200);
    const urls: string[] = res.json().urls;
    // Matches: by path (pricing, pricing-api, other.example's), by link text (/p/17 "Our pricing").
    expect(urls[0]).toBe(`${b}/pricing`);
    expect(urls.slice(0, 4).sort()).toEqual(
      [`${b}/pricing`, `${b}/docs/pricing-api`, 'https://other.example/pricing', `${b}/p/17`].sort(),
    );
    // The rest, in their own order.
    expect(urls.slice(4)).toEqual([
      `${b}/item`,
      `${b}/about/`,
      `${b}/careers`,
      `${b}/blog/shoes-for-running`,
    ]);
    // "shoes" matches a link's text ("Blue shoe") and a sitemap URL; the cut comes after the ranking.
    const shoes = await map({ url: `${b}/`, search: 'shoes', limit: 2 });
    expect(shoes.json().urls.sort()).toEqual([`${b}/item`, `${b}/blog/shoes-for-running`].sort());
  });

  it('refuses a bad search or option with 400 naming it, charging nothing', async () => {
    const before = await balance();
    for (const [query, param] of [
      [{ url: shop.url, search: '' }, 'search'],
      [{ url: shop.url, search: 'x'.repeat(201) }, 'search'],
      [{ url: shop.url, ignoreQueryParameters: 'maybe' }, 'ignoreQueryParameters'],
      [{ url: shop.url, deduplicateSimilarURLs: 'maybe' }, 'deduplicateSimilarURLs'],
      [{ url: shop.url, includeSubdomains: 'maybe' }, 'includeSubdomains'],
    ] as const) {
      const res = await map(query);
      expect(res.statusCode, JSON.stringify(query)).toBe(400);
      expect(res.json().message, JSON.stringify(query)).toContain(param);
    }
    expect(await balance()).toBe(before);
  });
});

describe('Mapper includeSubdomains (host names played by a DNS stand-in)', () => {
  it('true keeps the host (www. or not) and its subdomains; false the host alone', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/')
        return res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            [
              '/a',
              'http://www.site.test/b',
              'http://docs.site.test/c',
              'http://other.test/d',
              'http://notsite.test/e',
            ]
              .map((h) => `<a href="${h.replace('.test/', `.test:${server.port}/`)}">x</a>`)
              .join(''),
          );
      if (req.url === '/sitemap.xml')
        return res
          .writeHead(200, { 'content-type': 'application/xml' })
          .end(urlset(`http://blog.site.test:${server.port}/f`, `http://other.test:${server.port}/g`));
      res.writeHead(404).end();
    });
    const fetcher = new SafeFetcher({
      allowPrivateNetwork: true,
      timeoutMs: 5000,
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    try {
      const mapper = new Mapper(new Upstreams({}, fetcher, 10), 1);
      const base = `http://site.test:${server.port}`;
      const paths = (urls: string[]) => urls.map((u) => u.replace(`:${server.port}`, ''));
      const sub = await mapper.map(`${base}/`, { limit: 100, sitemap: 'include', includeSubdomains: true });
      expect(paths(sub.urls)).toEqual([
        'http://site.test/a',
        'http://www.site.test/b',
        'http://docs.site.test/c',
        'http://blog.site.test/f',
      ]);
      const host = await mapper.map(`${base}/`, { limit: 100, sitemap: 'include', includeSubdomains: false });
      expect(paths(host.urls)).toEqual(['http://site.test/a', 'http://www.site.test/b']);
      const all = await mapper.map(`${base}/`, { limit: 100, sitemap: 'include' });
      expect(all.urls).toHaveLength(7);
    } finally {
      await fetcher.close();
      await server.close();
    }
  });
});
