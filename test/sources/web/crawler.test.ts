// The crawl engine's rules on a synthetic web (the outside world, stood in for by a table of pages):
// scope, depth, filters before the limit, robots, redirects, deduplication, politeness, failures.
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import {
  type CrawlRobots,
  type CrawlSettings,
  type CrawlSitemapOptions,
  crawl,
  StartPageError,
} from '../../../src/sources/web/crawler.js';
import type { ScrapedPage } from '../../../src/sources/web/scraper.js';

type Site = Record<string, { links?: string[]; redirect?: string; fail?: boolean; waitMs?: number }>;

function web(site: Site, robots: Record<string, Partial<CrawlRobots>> = {}, sitemaps: string[] = []) {
  const fetched: string[] = [];
  /** Each fetch's start and end (ms), in the order they started. */
  const times: { url: string; start: number; end: number }[] = [];
  /** The calls of sitemapUrls: the start URL and the robots.txt Sitemap: URLs. */
  const sitemapCalls: { startUrl: string; roots: readonly string[] }[] = [];
  let active = 0;
  let maxActive = 0;
  const activeByHost = new Map<string, number>();
  let maxPerHost = 0;
  return {
    fetched,
    times,
    sitemapCalls,
    get maxActive() {
      return maxActive;
    },
    get maxPerHost() {
      return maxPerHost;
    },
    deps: {
      async scrape(url: string): Promise<ScrapedPage> {
        fetched.push(url);
        const time = { url, start: Date.now(), end: 0 };
        times.push(time);
        const host = new URL(url).host;
        active++;
        activeByHost.set(host, (activeByHost.get(host) ?? 0) + 1);
        maxActive = Math.max(maxActive, active);
        maxPerHost = Math.max(maxPerHost, activeByHost.get(host)!);
        await new Promise((r) => setTimeout(r, site[url]?.waitMs ?? 5));
        time.end = Date.now();
        active--;
        activeByHost.set(host, activeByHost.get(host)! - 1);
        let entry = site[url];
        let finalUrl = url;
        if (entry?.redirect) {
          finalUrl = entry.redirect;
          entry = site[finalUrl];
        }
        if (!entry || entry.fail)
          throw Object.assign(new Error(`${url} answered 404`), { code: 'not_found' });
        return {
          url: finalUrl,
          content: `content of ${finalUrl}`,
          name: null,
          description: null,
          ogUrl: null,
          ogImage: null,
          countCharacters: 0,
          urls: entry.links ?? [],
        };
      },
      async robots(origin: string): Promise<CrawlRobots> {
        return { isAllowed: () => true, crawlDelayMs: null, ...robots[origin] };
      },
      async sitemapUrls(startUrl: string, roots: readonly string[], opts: CrawlSitemapOptions) {
        sitemapCalls.push({ startUrl, roots });
        const kept = new Map<string, string>();
        for (const u of sitemaps) {
          const picked = opts.pick(u);
          if (picked && !kept.has(picked.key)) kept.set(picked.key, picked.url);
        }
        return [...kept.values()].slice(0, opts.limit);
      },
      pages: [] as string[],
      onPage(page: ScrapedPage) {
        this.pages.push(page.url);
      },
    },
  };
}

const settings = (url: string, over: Partial<CrawlSettings> = {}): CrawlSettings => ({
  url,
  limit: 100,
  maxDepth: 10,
  include: [],
  exclude: [],
  allowSubdomains: false,
  entireDomain: false,
  concurrency: 4,
  perHostConcurrency: 2,
  ...over,
});

const A = 'https://a.test';
const signal = () => new AbortController().signal;

describe('crawl engine', () => {
  const site: Site = {
    [`${A}/docs`]: {
      links: [`${A}/docs/one`, `${A}/docs/two`, `${A}/about`, `${A}/docs-old`, 'https://b.test/docs/x'],
    },
    [`${A}/docs/one`]: { links: [`${A}/docs/one/deeper`, `${A}/docs`] },
    [`${A}/docs/two`]: { links: [`${A}/docs/one`] },
    [`${A}/docs/one/deeper`]: { links: [`${A}/docs/one/deeper/deepest`] },
    [`${A}/docs/one/deeper/deepest`]: {},
    [`${A}/about`]: {},
    [`${A}/docs-old`]: {},
  };

  it('stays under the start path and host, fetching each page once', async () => {
    const w = web(site);
    const out = await crawl(settings(`${A}/docs`), w.deps, signal());
    expect(w.deps.pages.sort()).toEqual(
      [
        `${A}/docs`,
        `${A}/docs/one`,
        `${A}/docs/one/deeper`,
        `${A}/docs/one/deeper/deepest`,
        `${A}/docs/two`,
      ].sort(),
    );
    expect(new Set(w.fetched).size).toBe(w.fetched.length);
    expect(out).toMatchObject({ pagesScraped: 5, pagesFailed: 0, stoppedBy: null });
  });

  it('follows every path of the host with entireDomain, and subdomains only when allowed', async () => {
    const s: Site = {
      [`${A}/docs`]: { links: [`${A}/about`, 'https://www.a.test/x', 'https://other.test/'] },
      [`${A}/about`]: {},
      'https://www.a.test/x': {},
    };
    const w1 = web(s);
    await crawl(settings(`${A}/docs`, { entireDomain: true }), w1.deps, signal());
    expect(w1.deps.pages.sort()).toEqual([`${A}/about`, `${A}/docs`]);
    const w2 = web(s);
    await crawl(settings(`${A}/docs`, { entireDomain: true, allowSubdomains: true }), w2.deps, signal());
    expect(w2.deps.pages.sort()).toEqual([`${A}/about`, `${A}/docs`, 'https://www.a.test/x']);
  });

  it('counts maxDepth in link hops', async () => {
    const w = web(site);
    await crawl(settings(`${A}/docs`, { maxDepth: 1 }), w.deps, signal());
    expect(w.deps.pages.sort()).toEqual([`${A}/docs`, `${A}/docs/one`, `${A}/docs/two`]);
    const w0 = web(site);
    await crawl(settings(`${A}/docs`, { maxDepth: 0 }), w0.deps, signal());
    expect(w0.deps.pages).toEqual([`${A}/docs`]);
  });

  it('applies include/exclude before counting against the limit', async () => {
    const links = Array.from({ length: 30 }, (_, i) => `${A}/p/${i % 2 ? 'odd' : 'even'}-${i}`);
    const s: Site = { [`${A}/`]: { links } };
    for (const l of links) s[l] = {};
    const w = web(s);
    const out = await crawl(
      settings(`${A}/`, { limit: 5, include: [RE2JS.compile('^/p/odd-')], exclude: [RE2JS.compile('-1$')] }),
      w.deps,
      signal(),
    );
    // The start page does not match: fetched for its links, neither returned nor counted.
    expect(w.deps.pages).toHaveLength(5);
    expect(w.deps.pages.every((p) => /\/p\/odd-\d+$/.test(p) && !p.endsWith('-1'))).toBe(true);
    expect(w.fetched.some((u) => u.includes('even'))).toBe(false);
    expect(out).toMatchObject({ pagesScraped: 5, stoppedBy: 'limit' });
  });

  it('never returns more than limit pages, even with many fetches in flight', async () => {
    const links = Array.from({ length: 50 }, (_, i) => `${A}/x/${i}`);
    const s: Site = { [`${A}/x`]: { links } };
    for (const l of links) s[l] = {};
    const w = web(s);
    await crawl(settings(`${A}/x`, { limit: 7, concurrency: 16, perHostConcurrency: 16 }), w.deps, signal());
    expect(w.deps.pages).toHaveLength(7);
    expect(w.fetched.length).toBe(7);
  });

  it('honours robots.txt and fails the crawl when the start page is disallowed', async () => {
    const robots = { [A]: { isAllowed: (u: string) => !u.includes('/docs/two') } };
    const w = web(site, robots);
    const out = await crawl(settings(`${A}/docs`), w.deps, signal());
    expect(w.fetched).not.toContain(`${A}/docs/two`);
    expect(out.skippedByRobots).toBe(1);
    const w2 = web(site, { [A]: { isAllowed: () => false } });
    await expect(crawl(settings(`${A}/docs`), w2.deps, signal())).rejects.toBeInstanceOf(StartPageError);
  });

  it('keys pages by their final URL and rescopes to where the start page redirects', async () => {
    const s: Site = {
      'http://a.test/': { redirect: 'https://www.a.test/' },
      'https://www.a.test/': { links: ['https://www.a.test/one', 'https://www.a.test/alias'] },
      'https://www.a.test/one': {},
      'https://www.a.test/alias': { redirect: 'https://www.a.test/one' },
    };
    const w = web(s);
    const out = await crawl(settings('http://a.test/'), w.deps, signal());
    expect(w.deps.pages.sort()).toEqual(['https://www.a.test/', 'https://www.a.test/one']);
    expect(out.pagesScraped).toBe(2);
  });

  it('records failed pages without failing the crawl; a failing start page fails it', async () => {
    const s: Site = { [`${A}/`]: { links: [`${A}/missing`, `${A}/ok`] }, [`${A}/ok`]: {} };
    const w = web(s);
    const out = await crawl(settings(`${A}/`), w.deps, signal());
    expect(out).toMatchObject({ pagesScraped: 2, pagesFailed: 1 });
    expect(out.failures).toEqual([
      { url: `${A}/missing`, error: 'not_found', message: `${A}/missing answered 404` },
    ]);
    await expect(crawl(settings(`${A}/nowhere`), web(s).deps, signal())).rejects.toBeInstanceOf(
      StartPageError,
    );
  });

  it('keeps to the concurrency overall and per host', async () => {
    const hosts = ['https://a.test', 'https://b.a.test', 'https://c.a.test'];
    const s: Site = { [`${A}/`]: { links: [] } };
    for (const h of hosts) {
      for (let i = 0; i < 12; i++) {
        s[`${h}/p${i}`] = {};
        s[`${A}/`]?.links?.push(`${h}/p${i}`);
      }
    }
    const w = web(s);
    await crawl(
      settings(`${A}/`, { allowSubdomains: true, concurrency: 5, perHostConcurrency: 2 }),
      w.deps,
      signal(),
    );
    expect(w.deps.pages).toHaveLength(37);
    expect(w.maxActive).toBeLessThanOrEqual(5);
    expect(w.maxActive).toBeGreaterThan(2); // hosts in parallel
    expect(w.maxPerHost).toBe(2);
  });

  it('waits Crawl-delay between requests to a host that asks for it', async () => {
    const links = [`${A}/d/1`, `${A}/d/2`, `${A}/d/3`];
    const s: Site = { [`${A}/d`]: { links } };
    for (const l of links) s[l] = {};
    const w = web(s, { [A]: { crawlDelayMs: 60 } });
    const started = Date.now();
    await crawl(settings(`${A}/d`, { concurrency: 8, perHostConcurrency: 8 }), w.deps, signal());
    expect(w.deps.pages).toHaveLength(4);
    expect(w.maxPerHost).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3 * 60 - 5);
  });

  it('stops when its signal aborts', async () => {
    const links = Array.from({ length: 200 }, (_, i) => `${A}/s/${i}`);
    const s: Site = { [`${A}/s`]: { links } };
    for (const l of links) s[l] = {};
    const controller = new AbortController();
    const w = web(s);
    setTimeout(() => controller.abort(new Error('stop')), 30);
    await expect(crawl(settings(`${A}/s`, { concurrency: 1 }), w.deps, controller.signal)).rejects.toThrow(
      'stop',
    );
    expect(w.fetched.length).toBeLessThan(50);
  });
});

describe('crawl engine options', () => {
  it('sitemap=include queues the sitemap URLs in scope as depth-0 pages, ahead of the links', async () => {
    const s: Site = {
      [`${A}/docs`]: { links: [`${A}/docs/linked`] },
      [`${A}/docs/linked`]: { links: [`${A}/docs/linked/deeper`] },
      [`${A}/docs/linked/deeper`]: {},
      [`${A}/docs/from-map`]: { links: [`${A}/docs/from-map/child`] },
      [`${A}/docs/from-map/child`]: {},
      [`${A}/docs/skipped`]: {},
    };
    const sitemap = [
      `${A}/about`, // out of scope
      `${A}/docs/from-map`,
      `${A}/docs/linked`, // also a link: once
      `${A}/docs/skipped`, // filtered out
      'https://other.test/docs/x',
    ];
    const robots = { [A]: { sitemaps: [`${A}/sm.xml`] } };
    const w = web(s, robots, sitemap);
    const exclude = [RE2JS.compile('skipped')];
    await crawl(
      settings(`${A}/docs`, { sitemap: 'include', maxDepth: 1, exclude, concurrency: 1 }),
      w.deps,
      signal(),
    );
    // Depth 0: the start page, then the sitemap's; depth 1: their links.
    expect(w.fetched).toEqual([
      `${A}/docs`,
      `${A}/docs/from-map`,
      `${A}/docs/linked`,
      `${A}/docs/from-map/child`,
      `${A}/docs/linked/deeper`,
    ]);
    expect(w.sitemapCalls).toEqual([{ startUrl: `${A}/docs`, roots: [`${A}/sm.xml`] }]);

    // maxDepth 0: the start page and the sitemap's pages, no link followed.
    const w0 = web(s, robots, sitemap);
    await crawl(settings(`${A}/docs`, { sitemap: 'include', maxDepth: 0, exclude }), w0.deps, signal());
    expect(w0.deps.pages.sort()).toEqual([`${A}/docs`, `${A}/docs/from-map`, `${A}/docs/linked`]);
    // skip (the default) reads no sitemap.
    const ws = web(s, robots, sitemap);
    await crawl(settings(`${A}/docs`, { maxDepth: 0 }), ws.deps, signal());
    expect(ws.sitemapCalls).toEqual([]);
    expect(ws.fetched).toEqual([`${A}/docs`]);
  });

  it('sitemap=include reads the sitemaps of where the start page redirects', async () => {
    const s: Site = {
      'http://a.test/': { redirect: 'https://www.a.test/' },
      'https://www.a.test/': {},
      'https://www.a.test/x': {},
    };
    const w = web(s, {}, ['https://www.a.test/x', 'https://a.test/y']);
    await crawl(settings('http://a.test/', { sitemap: 'include' }), w.deps, signal());
    expect(w.sitemapCalls.map((c) => c.startUrl)).toEqual(['https://www.a.test/']);
    expect(w.deps.pages).toEqual(['https://www.a.test/', 'https://www.a.test/x']);
  });

  it('sitemap=only crawls the sitemap URLs alone: no start page unless listed, no link followed', async () => {
    const s: Site = {
      [`${A}/docs`]: { links: [`${A}/docs/linked`] },
      [`${A}/docs/linked`]: {},
      [`${A}/docs/one`]: { links: [`${A}/docs/linked`] },
      [`${A}/docs/two`]: {},
    };
    const w = web(s, {}, [`${A}/docs/one`, `${A}/docs/two`, `${A}/docs/gone`, `${A}/elsewhere`]);
    const out = await crawl(settings(`${A}/docs`, { sitemap: 'only' }), w.deps, signal());
    expect(w.fetched).toEqual([`${A}/docs/one`, `${A}/docs/two`, `${A}/docs/gone`]);
    expect(out).toMatchObject({ pagesScraped: 2, pagesFailed: 1, stoppedBy: null });
    expect(w.sitemapCalls.map((c) => c.startUrl)).toEqual([`${A}/docs`]);

    // Listed, the start page is crawled like any other; robots.txt still rules.
    const robots = { [A]: { isAllowed: (u: string) => !u.endsWith('/two') } };
    const w2 = web(s, robots, [`${A}/docs`, `${A}/docs/two`]);
    const out2 = await crawl(settings(`${A}/docs`, { sitemap: 'only' }), w2.deps, signal());
    expect(w2.fetched).toEqual([`${A}/docs`]);
    expect(out2).toMatchObject({ pagesScraped: 1, skippedByRobots: 1 });

    // Nothing in scope: the crawl fails, saying so.
    const w3 = web(s, {}, [`${A}/elsewhere`]);
    const err = await crawl(settings(`${A}/docs`, { sitemap: 'only' }), w3.deps, signal()).catch((e) => e);
    expect(err).toBeInstanceOf(StartPageError);
    expect(err).toMatchObject({ code: 'not_found', message: expect.stringMatching(/no sitemap of a\.test/) });
    expect(w3.fetched).toEqual([]);
  });

  it('ignoreQueryParameters fetches each path once, without its query (the start URL as given)', async () => {
    const s: Site = {
      [`${A}/list?page=1`]: { links: [`${A}/item?id=1`, `${A}/item?id=2`, `${A}/item`, `${A}/list?page=2`] },
      [`${A}/item`]: {},
      [`${A}/item?id=1`]: {},
      [`${A}/item?id=2`]: {},
      [`${A}/list?page=2`]: {},
      [`${A}/list`]: {},
    };
    const w = web(s);
    await crawl(
      settings(`${A}/list?page=1`, { ignoreQueryParameters: true, entireDomain: true }),
      w.deps,
      signal(),
    );
    expect(w.fetched).toEqual([`${A}/list?page=1`, `${A}/item`]);
    const w2 = web(s);
    await crawl(settings(`${A}/list?page=1`, { entireDomain: true }), w2.deps, signal());
    expect(w2.fetched).toHaveLength(5);
  });

  it('deduplicateSimilarURLs fetches www./bare, http/https, slash and index twins once, the first form seen', async () => {
    const s: Site = {
      [`${A}/`]: {
        links: [
          'https://www.a.test/docs/',
          'http://a.test/docs',
          `${A}/docs/index.html`,
          'https://www.a.test/guide',
          `${A}/guide/`,
          'https://b.a.test/x', // a subdomain: still out of scope
        ],
      },
      'https://www.a.test/docs/': {},
      'https://www.a.test/guide': {},
    };
    const w = web(s);
    await crawl(settings(`${A}/`, { deduplicateSimilarURLs: true }), w.deps, signal());
    expect(w.fetched).toEqual([`${A}/`, 'https://www.a.test/docs/', 'https://www.a.test/guide']);
    // Without it, each spelling is a page (www. being another host, out of scope).
    const w2 = web(s);
    await crawl(settings(`${A}/`), w2.deps, signal());
    expect(w2.fetched.sort()).toEqual(
      [`${A}/`, `${A}/docs/index.html`, `${A}/guide/`, 'http://a.test/docs'].sort(),
    );
  });

  it('crawls a start page that redirects to its own twin, and drops a page redirecting to a known one', async () => {
    const s: Site = {
      'http://a.test/': { redirect: 'https://www.a.test/' },
      'https://www.a.test/': { links: ['https://www.a.test/one', 'https://www.a.test/alias'] },
      'https://www.a.test/one': {},
      'https://www.a.test/alias': { redirect: 'https://a.test/one/' },
      'https://a.test/one/': {},
    };
    const w = web(s);
    const out = await crawl(settings('http://a.test/', { deduplicateSimilarURLs: true }), w.deps, signal());
    expect(w.deps.pages.sort()).toEqual(['https://www.a.test/', 'https://www.a.test/one']);
    expect(out.pagesScraped).toBe(2);
  });

  it('delayMs: one request at a time to a host, each starting at least the delay after the last ended', async () => {
    const links = [`${A}/d/1`, `${A}/d/2`, `${A}/d/3`];
    const s: Site = { [`${A}/d`]: { links } };
    for (const l of links) s[l] = {};
    const w = web(s);
    await crawl(settings(`${A}/d`, { delayMs: 40, concurrency: 8, perHostConcurrency: 8 }), w.deps, signal());
    expect(w.deps.pages).toHaveLength(4);
    expect(w.maxPerHost).toBe(1);
    for (let i = 1; i < w.times.length; i++) {
      expect(w.times[i]!.start - w.times[i - 1]!.end).toBeGreaterThanOrEqual(40 - 2);
    }
  });

  it('takes the larger of delayMs and Crawl-delay, and asks a host one at a time until its robots.txt is read', async () => {
    const B = 'https://b.a.test';
    const links = Array.from({ length: 4 }, (_, i) => `${B}/p${i}`);
    const s: Site = { [`${A}/`]: { links } };
    for (const l of links) s[l] = {};
    const w = web(s, { [B]: { crawlDelayMs: 50 } });
    await crawl(
      settings(`${A}/`, { allowSubdomains: true, delayMs: 20, concurrency: 8, perHostConcurrency: 8 }),
      w.deps,
      signal(),
    );
    expect(w.maxPerHost).toBe(1);
    const onB = w.times.filter((t) => t.url.startsWith(B));
    expect(onB).toHaveLength(4);
    for (let i = 1; i < onB.length; i++) {
      expect(onB[i]!.start - onB[i - 1]!.end).toBeGreaterThanOrEqual(50 - 2);
    }
  });

  it("starts a resting host's next request when its pause ends, while another host is still busy", async () => {
    const B = 'https://b.a.test';
    const C = 'https://c.a.test';
    const s: Site = {
      [`${A}/`]: { links: [`${C}/slow`, `${B}/1`, `${B}/2`] },
      [`${C}/slow`]: { waitMs: 800 },
      [`${B}/1`]: {},
      [`${B}/2`]: {},
    };
    const w = web(s, { [B]: { crawlDelayMs: 30 } });
    await crawl(settings(`${A}/`, { allowSubdomains: true, concurrency: 8 }), w.deps, signal());
    const at = (u: string) => w.times.find((t) => t.url === u)!;
    expect(at(`${B}/2`).start).toBeLessThan(at(`${C}/slow`).end);
    expect(at(`${B}/2`).start - at(`${B}/1`).end).toBeGreaterThanOrEqual(30 - 2);
  });

  it("keeps a host's Crawl-delay from its first requests, found on it together", async () => {
    const B = 'https://b.a.test';
    const links = Array.from({ length: 4 }, (_, i) => `${B}/p${i}`);
    const s: Site = { [`${A}/`]: { links } };
    for (const l of links) s[l] = {};
    // Four links to a host not asked before: its robots.txt is read before a second request goes.
    const w = web(s, { [B]: { crawlDelayMs: 30 } });
    await crawl(
      settings(`${A}/`, { allowSubdomains: true, concurrency: 8, perHostConcurrency: 8 }),
      w.deps,
      signal(),
    );
    expect(w.maxPerHost).toBe(1);
    // A host without a delay is asked perHostConcurrency at a time once its robots.txt is read.
    const w2 = web(s);
    await crawl(
      settings(`${A}/`, { allowSubdomains: true, concurrency: 8, perHostConcurrency: 8 }),
      w2.deps,
      signal(),
    );
    expect(w2.maxPerHost).toBeGreaterThan(1);
  });
});
