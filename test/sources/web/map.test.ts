// GET /v1/web/map end to end: a real app on a fresh database, mapping loopback sites that play the
// web (a page with links, robots.txt Sitemap: lines, sitemap indexes, gzipped and broken sitemaps).
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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
  t = await createTestApp({ UNFURL_ALLOW_PRIVATE_NETWORK: 'true' });
  key = (await t.register()).apiKey;
});

afterAll(async () => {
  await t?.close();
  await Promise.all([site, plain, broken].map((s) => s?.close()));
});

const map = (query: Record<string, string | number>) =>
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
