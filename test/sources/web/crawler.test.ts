// The crawl engine's rules on a synthetic web (the outside world, stood in for by a table of pages):
// scope, depth, filters before the limit, robots, redirects, deduplication, politeness, failures.
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import {
  type CrawlRobots,
  type CrawlSettings,
  crawl,
  StartPageError,
} from '../../../src/sources/web/crawler.js';
import type { ScrapedPage } from '../../../src/sources/web/scraper.js';

type Site = Record<string, { links?: string[]; redirect?: string; fail?: boolean }>;

function web(site: Site, robots: Record<string, Partial<CrawlRobots>> = {}) {
  const fetched: string[] = [];
  let active = 0;
  let maxActive = 0;
  const activeByHost = new Map<string, number>();
  let maxPerHost = 0;
  return {
    fetched,
    get maxActive() {
      return maxActive;
    },
    get maxPerHost() {
      return maxPerHost;
    },
    deps: {
      async scrape(url: string): Promise<ScrapedPage> {
        fetched.push(url);
        const host = new URL(url).host;
        active++;
        activeByHost.set(host, (activeByHost.get(host) ?? 0) + 1);
        maxActive = Math.max(maxActive, active);
        maxPerHost = Math.max(maxPerHost, activeByHost.get(host)!);
        await new Promise((r) => setTimeout(r, 5));
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
