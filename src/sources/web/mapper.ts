// map: the URLs of a site without crawling it — the start page's own links and the site's sitemaps,
// fetched in parallel, normalised, deduplicated and capped (Firecrawl's map, less the search index).
//
// Choices where the spec is silent:
// - Page links come first, in page order, then sitemap URLs in sitemap order: the page is what the
//   caller pointed at, the sitemap what the site adds. The start URL itself is listed only if the
//   page links to it or a sitemap lists it ("all links found on the page").
// - Links to every host are kept, as found; sitemap URLs are kept as listed (any host).
// - The list is not filtered by robots.txt: map lists URLs, it does not fetch them (crawl does, and
//   obeys it). robots.txt is read here only for its Sitemap: lines.
// - robots.txt and sitemaps are looked for at the origin of the URL asked for, not of wherever the
//   page redirects; a site-wide redirect (http → https, bare → www) is followed by those fetches too.
// - A start page that is not HTML (PDF, text, XML) has no links; a failing start page fails the map
//   with its own error (404 → not_found), while failing sitemaps only leave their URLs out.
// - sitemap=only does not fetch the start page, so it answers 200 with whatever the sitemaps give,
//   possibly nothing.
import type { Upstreams } from '../../net/upstream.js';
import { fetchDocument } from './fetch-page.js';
import { extractLinks } from './page.js';
import { fetchRobots } from './robots.js';
import { sitemapUrls } from './sitemaps.js';

/** robots.txt and sitemaps together; what they have not given by then is left out. */
const SITEMAP_BUDGET_MS = 20_000;

export type SitemapMode = 'include' | 'skip' | 'only';

export interface MapOptions {
  /** Most URLs answered. */
  limit: number;
  /** include: page links and sitemap URLs; skip: page links only; only: sitemap URLs only. */
  sitemap: SitemapMode;
  signal?: AbortSignal;
}

export class Mapper {
  constructor(
    private readonly upstreams: Upstreams,
    /** Tries for the start page (proxies rotate between them); robots and sitemaps get one. */
    private readonly attempts: number,
  ) {}

  async map(url: string, opts: MapOptions): Promise<{ urls: string[] }> {
    // Aborted when the map is over either way: a failed start page stops the sitemap walk at once.
    const done = new AbortController();
    const signal = opts.signal ? AbortSignal.any([opts.signal, done.signal]) : done.signal;
    const fromSitemaps =
      opts.sitemap === 'skip' ? Promise.resolve([]) : this.sitemapLinks(url, opts.limit, signal);
    fromSitemaps.catch(() => {}); // awaited below unless the page fails first
    try {
      const fromPage = opts.sitemap === 'only' ? [] : await this.pageLinks(url, signal);
      const urls = new Set(fromPage.slice(0, opts.limit));
      for (const u of await fromSitemaps) {
        if (urls.size >= opts.limit) break;
        urls.add(u);
      }
      return { urls: [...urls] };
    } finally {
      done.abort();
    }
  }

  /** The start page's links (absolute, normalised, deduplicated, in page order); errors propagate. */
  private async pageLinks(url: string, signal: AbortSignal): Promise<string[]> {
    // A huge page is cut rather than refused: its first megabytes still hold links.
    const doc = await fetchDocument(this.upstreams, url, { attempts: this.attempts, truncate: true, signal });
    return doc.kind === 'html' ? extractLinks(doc.text, doc.url) : [];
  }

  /** robots.txt then sitemaps, under one time budget: a slow site shortens the list past it. */
  private async sitemapLinks(url: string, limit: number, signal: AbortSignal): Promise<string[]> {
    const deadline = Date.now() + SITEMAP_BUDGET_MS;
    const robots = await fetchRobots(this.upstreams, url, { signal });
    const timeBudgetMs = Math.max(0, deadline - Date.now());
    return sitemapUrls(this.upstreams, url, robots.sitemaps, { limit, signal, timeBudgetMs });
  }
}
