// Sitemaps: the pure parser on each format, and walks over real loopback sites (indexes, .gz files,
// caps on depth, files, bytes, URLs and time, broken files skipped).
import type http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { SafeFetcher } from '../../../src/net/safe-fetch.js';
import { Upstreams } from '../../../src/net/upstream.js';
import { parseSitemap, sitemapUrls } from '../../../src/sources/web/sitemaps.js';
import { type Loopback, startServer } from '../../support/loopback.js';

const fetcher = new SafeFetcher({ allowPrivateNetwork: true, timeoutMs: 5000 });
const upstreams = new Upstreams({}, fetcher, 10);
const servers: Loopback[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await fetcher.close();
});

const urlset = (...locs: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs
    .map((l) => `<url><loc>${l}</loc></url>`)
    .join('\n')}</urlset>`;
const index = (...locs: string[]) =>
  `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs
    .map((l) => `<sitemap><loc>${l}</loc><lastmod>2024-01-01</lastmod></sitemap>`)
    .join('')}</sitemapindex>`;

type Route = string | Buffer | ((req: http.IncomingMessage, res: http.ServerResponse) => void);

/** A site answering `routes` (path → XML text, gzip bytes, or a handler), 404 elsewhere; logs paths. */
async function site(routes: (base: string) => Record<string, Route>) {
  const hits: string[] = [];
  let table: Record<string, Route> = {};
  const server = await startServer((req, res) => {
    hits.push(req.url ?? '');
    const route = table[req.url ?? ''];
    if (route === undefined)
      return res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
    if (typeof route === 'function') return route(req, res);
    if (Buffer.isBuffer(route))
      return res.writeHead(200, { 'content-type': 'application/x-gzip' }).end(route);
    const type = route.trimStart().startsWith('<') ? 'application/xml' : 'text/plain';
    res.writeHead(200, { 'content-type': type }).end(route);
  });
  servers.push(server);
  table = routes(server.url);
  return { base: server.url, hits };
}

describe('parseSitemap', () => {
  it('reads a urlset: entities decoded, whitespace trimmed, CDATA, images and alternates ignored', () => {
    const body = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
        xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url>
    <loc>
      https://example.com/a?x=1&amp;y=2
    </loc>
    <image:image><image:loc>https://example.com/img.png</image:loc></image:image>
    <xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/a"/>
  </url>
  <url><loc><![CDATA[https://example.com/b&c]]></loc></url>
  <url><loc>https://example.com/caf&#xE9;</loc><lastmod>2024-01-01</lastmod></url>
  <url><loc>   </loc></url>
</urlset>`;
    expect(parseSitemap(body)).toEqual({
      urls: ['https://example.com/a?x=1&y=2', 'https://example.com/b&c', 'https://example.com/café'],
      sitemaps: [],
    });
  });

  it('reads a sitemap index, also with namespace prefixes', () => {
    expect(parseSitemap(index('https://example.com/s1.xml', 'https://example.com/s2.xml.gz'))).toEqual({
      urls: [],
      sitemaps: ['https://example.com/s1.xml', 'https://example.com/s2.xml.gz'],
    });
    const prefixed =
      '<sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:sitemap><sm:loc>https://example.com/p.xml</sm:loc></sm:sitemap></sm:sitemapindex>';
    expect(parseSitemap(prefixed).sitemaps).toEqual(['https://example.com/p.xml']);
  });

  it('reads a plain-text sitemap: one URL a line, anything else ignored', () => {
    const body =
      '\uFEFFhttps://example.com/1\r\n\r\n  http://example.com/2  \n# comment\nnot a url\nftp://x/y\n';
    expect(parseSitemap(body)).toEqual({
      urls: ['https://example.com/1', 'http://example.com/2'],
      sitemaps: [],
    });
  });

  it('reads RSS and Atom feeds (allowed as sitemaps), skipping the feed-level links', () => {
    const rss =
      '<rss version="2.0"><channel><link>https://example.com/</link><item><title>t</title><link>https://example.com/post-1</link></item></channel></rss>';
    expect(parseSitemap(rss).urls).toEqual(['https://example.com/post-1']);
    const atom =
      '<feed xmlns="http://www.w3.org/2005/Atom"><link href="https://example.com/"/><entry><link rel="alternate" href="https://example.com/e1"/><link rel="edit" href="https://example.com/edit/e1"/></entry><entry><link href="https://example.com/e2"/></entry></feed>';
    expect(parseSitemap(atom).urls).toEqual(['https://example.com/e1', 'https://example.com/e2']);
  });

  it('drops the URL of a file cut in the middle of it, keeps the complete ones', () => {
    const cut = '<urlset><url><loc>https://example.com/whole</loc></url><url><loc>https://example.com/ha';
    expect(parseSitemap(cut).urls).toEqual(['https://example.com/whole']);
    expect(parseSitemap('<html><body><h1>Not a sitemap</h1></body></html>')).toEqual({
      urls: [],
      sitemaps: [],
    });
  });
});

describe('sitemapUrls', () => {
  it('follows an index to a .gz sitemap and a plain one, skipping broken ones; normalised, deduplicated, in order', async () => {
    const { base, hits } = await site((b) => ({
      '/sitemap_index.xml': index(
        `${b}/gz.xml.gz`,
        `${b}/missing.xml`,
        `${b}/broken.xml`,
        `${b}/plain.xml`,
        `${b}/list.txt`,
      ),
      '/gz.xml.gz': zlib.gzipSync(
        urlset(`${b}/g1`, `${b}/g2#frag`, `HTTP://127.0.0.1:${new URL(b).port}/g1`),
      ),
      '/broken.xml': '<urlset><url><loc>&bogus; </loc><url>>><<<loc></urlset',
      '/plain.xml': urlset(`${b}/p1`, `${b}/g2`, '/relative'),
      '/list.txt': `${b}/t1\n${b}/p1\n`,
    }));
    const urls = await sitemapUrls(upstreams, `${base}/start`, [`${base}/sitemap_index.xml`], { limit: 100 });
    // '/relative' is not a sitemap URL (they must be absolute) and is dropped, as Google does.
    expect(urls).toEqual([`${base}/g1`, `${base}/g2`, `${base}/p1`, `${base}/t1`]);
    expect(hits).toEqual(
      expect.arrayContaining([
        '/sitemap_index.xml',
        '/gz.xml.gz',
        '/missing.xml',
        '/broken.xml',
        '/plain.xml',
        '/list.txt',
      ]),
    );
  });

  it('without robots sitemaps reads /sitemap.xml, and /sitemap_index.xml only when that gives nothing', async () => {
    const a = await site((b) => ({ '/sitemap.xml': urlset(`${b}/a1`) }));
    expect(await sitemapUrls(upstreams, `${a.base}/x/y`, [], { limit: 10 })).toEqual([`${a.base}/a1`]);
    expect(a.hits).toEqual(['/sitemap.xml']);

    const b = await site((base) => ({
      '/sitemap_index.xml': index(`${base}/s.xml`),
      '/s.xml': urlset(`${base}/b1`),
    }));
    expect(await sitemapUrls(upstreams, b.base, [], { limit: 10 })).toEqual([`${b.base}/b1`]);
    expect(b.hits).toEqual(['/sitemap.xml', '/sitemap_index.xml', '/s.xml']);

    const none = await site(() => ({}));
    expect(await sitemapUrls(upstreams, none.base, [], { limit: 10 })).toEqual([]);
  });

  it('counts toward limit only the URLs pick keeps, once per key, in the form it gives', async () => {
    const { base, hits } = await site((b) => ({
      '/sitemap.xml': index(`${b}/one.xml`, `${b}/two.xml`),
      '/one.xml': urlset(`${b}/a?x=1`, `${b}/skip/1`, `${b}/a?x=2`, `${b}/b`),
      '/two.xml': urlset(`${b}/skip/2`, `${b}/c?y`, `${b}/d`),
    }));
    const pick = (url: string) =>
      url.includes('/skip/') ? null : { url: url.split('?')[0]!, key: url.split('?')[0]! };
    expect(await sitemapUrls(upstreams, base, [], { limit: 3, pick })).toEqual([
      `${base}/a`,
      `${base}/b`,
      `${base}/c`,
    ]);
    expect(hits).toContain('/two.xml');
  });

  it('reads robots.txt sitemaps on other hosts, in the order given', async () => {
    const other = await site((b) => ({ '/maps/one.xml': urlset(`${b}/o1`) }));
    const own = await site((b) => ({ '/two.xml': urlset(`${b}/w1`) }));
    const urls = await sitemapUrls(
      upstreams,
      own.base,
      [`${other.base}/maps/one.xml`, `${own.base}/two.xml`],
      {
        limit: 10,
      },
    );
    expect(urls).toEqual([`${other.base}/o1`, `${own.base}/w1`]);
  });

  it('stops following indexes below maxDepth', async () => {
    const { base, hits } = await site((b) => {
      const routes: Record<string, Route> = {};
      for (let n = 0; n < 6; n++) {
        routes[`/level-${n}.xml`] = index(`${b}/leaf-${n}.xml`, `${b}/level-${n + 1}.xml`);
        routes[`/leaf-${n}.xml`] = urlset(`${b}/page-${n}`);
      }
      return routes;
    });
    const urls = await sitemapUrls(upstreams, base, [`${base}/level-0.xml`], { limit: 100, maxDepth: 2 });
    // level-0 (depth 0) → leaf-0, level-1 (depth 1) → leaf-1, level-2 (depth 2, read; not followed).
    expect(urls).toEqual([`${base}/page-0`, `${base}/page-1`]);
    expect(hits).not.toContain('/leaf-2.xml');
    expect(hits).not.toContain('/level-3.xml');

    const deep = await sitemapUrls(upstreams, base, [`${base}/level-0.xml`], { limit: 100 });
    expect(deep).toEqual([0, 1, 2].map((n) => `${base}/page-${n}`)); // default depth 3
  });

  it('fetches at most maxSitemaps files, and never the same file twice', async () => {
    const { base, hits } = await site((b) => {
      const routes: Record<string, Route> = {
        '/index.xml': index(`${b}/index.xml`, ...Array.from({ length: 10 }, (_, i) => `${b}/s${i}.xml`)),
      };
      for (let i = 0; i < 10; i++) routes[`/s${i}.xml`] = urlset(`${b}/p${i}`);
      return routes;
    });
    const urls = await sitemapUrls(upstreams, base, [`${base}/index.xml`], { limit: 100, maxSitemaps: 4 });
    expect(urls).toEqual([`${base}/p0`, `${base}/p1`, `${base}/p2`]);
    expect(hits.sort()).toEqual(['/index.xml', '/s0.xml', '/s1.xml', '/s2.xml']);
  });

  it('cuts a gzip bomb at 50 MiB decoded and keeps the URLs before the cut', async () => {
    // 1 GiB of blanks in ~1 MB: 100 gzip members of 10 MiB each, between two URLs.
    const blanks = zlib.gzipSync(Buffer.alloc(10 * 1024 * 1024, ' '));
    const bomb = Buffer.concat([
      zlib.gzipSync(`<urlset><url><loc>http://bomb.test/first</loc></url>`),
      ...Array.from({ length: 100 }, () => blanks),
      zlib.gzipSync(`<url><loc>http://bomb.test/after</loc></url></urlset>`),
    ]);
    const { base } = await site(() => ({ '/bomb.xml.gz': bomb }));
    const started = Date.now();
    const urls = await sitemapUrls(upstreams, base, [`${base}/bomb.xml.gz`], { limit: 10 });
    expect(urls).toEqual(['http://bomb.test/first']);
    // Decoding the whole GiB would take minutes; 50 MiB takes seconds even on a loaded machine.
    expect(Date.now() - started).toBeLessThan(15_000);
    // A smaller cap cuts it sooner.
    expect(
      await sitemapUrls(upstreams, base, [`${base}/bomb.xml.gz`], { limit: 10, maxFileBytes: 1024 }),
    ).toEqual(['http://bomb.test/first']);
  });

  it('honours limit and fetches no more files once it is reached', async () => {
    const { base, hits } = await site((b) => ({
      '/index.xml': index(...Array.from({ length: 20 }, (_, i) => `${b}/s${i}.xml`)),
      ...Object.fromEntries(
        Array.from({ length: 20 }, (_, i) => [
          `/s${i}.xml`,
          urlset(`${b}/p${i}-a`, `${b}/p${i}-b`, `${b}/p${i}-c`),
        ]),
      ),
    }));
    const urls = await sitemapUrls(upstreams, base, [`${base}/index.xml`], { limit: 4 });
    expect(urls).toEqual([`${base}/p0-a`, `${base}/p0-b`, `${base}/p0-c`, `${base}/p1-a`]);
    // Up to 4 fetched ahead of the one being read, never all 20.
    expect(hits.length).toBeLessThanOrEqual(1 + 2 + 4);
  });

  it('answers with what it found when its time budget runs out, and throws the caller abort', async () => {
    const { base } = await site((b) => ({
      '/index.xml': index(`${b}/fast.xml`, `${b}/slow.xml`),
      '/fast.xml': urlset(`${b}/quick`),
      '/slow.xml': () => {
        // never answers
      },
    }));
    const started = Date.now();
    const urls = await sitemapUrls(upstreams, base, [`${base}/index.xml`], { limit: 10, timeBudgetMs: 300 });
    expect(urls).toEqual([`${base}/quick`]);
    expect(Date.now() - started).toBeLessThan(3000);

    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('caller gave up')), 100);
    await expect(
      sitemapUrls(upstreams, base, [`${base}/index.xml`], { limit: 10, signal: controller.signal }),
    ).rejects.toThrow('caller gave up');
  });
});
