// map: the URLs of a site without crawling it — the start page's own links and the site's sitemaps,
// fetched in parallel, normalised, deduplicated and capped (Firecrawl's map, less the search index).
//
// Choices where the spec is silent:
// - Page links come first, in page order, then sitemap URLs in sitemap order: the page is what the
//   caller pointed at, the sitemap what the site adds. The start URL itself is listed only if the
//   page links to it or a sitemap lists it ("all links found on the page").
// - Links to every host are kept, as found; sitemap URLs are kept as listed (any host) — unless
//   `includeSubdomains` is given (below).
// - The list is not filtered by robots.txt: map lists URLs, it does not fetch them (crawl does, and
//   obeys it). robots.txt is read here only for its Sitemap: lines.
// - robots.txt and sitemaps are looked for at the origin of the URL asked for, not of wherever the
//   page redirects; a site-wide redirect (http → https, bare → www) is followed by those fetches too.
// - A start page that is not HTML (PDF, text, XML) has no links; a failing start page fails the map
//   with its own error (404 → not_found), while failing sitemaps only leave their URLs out.
// - sitemap=only does not fetch the start page, so it answers 200 with whatever the sitemaps give,
//   possibly nothing.
// - `ignoreQueryParameters` (default true, as Firecrawl's map) lists URLs without their query, each
//   once; `deduplicateSimilarURLs` (default true) lists www./bare, http/https, trailing-slash and
//   index.html|htm|php twins once, in the first form found (url-dedupe.ts, shared with crawl).
// - `includeSubdomains`: absent, every host is kept, as above (what map always did); false keeps
//   only the start URL's host, true that host and its subdomains — www. or not being one host either
//   way, and the host the start page redirects to counting as its own for the page's links. Firecrawl
//   keeps only the site's hosts; we keep the old answer unless asked.
// - `search` ranks the URLs by relevance (map-search.ts), the non-matching ones after, then cuts at
//   `limit`: it reads the sitemaps up to the largest limit (10000) rather than `limit`, so a page
//   deep in a sitemap can still make the cut; the ranking uses the URLs' words and the start page's
//   link texts.
import type { Upstreams } from '../../net/upstream.js';
import { fetchDocument } from './fetch-page.js';
import { linkTexts, rankUrls } from './map-search.js';
import { extractLinks } from './page.js';
import { fetchRobots } from './robots.js';
import { type SitemapMode, sitemapUrls } from './sitemaps.js';
import { sameSite } from './url.js';
import { type DedupeOptions, listedForm, UrlSet, urlKey } from './url-dedupe.js';

/** robots.txt and sitemaps together; what they have not given by then is left out. */
const SITEMAP_BUDGET_MS = 20_000;
/** URLs read from sitemaps when searching (then ranked and cut at `limit`): map's largest limit. */
const SEARCH_POOL = 10_000;

export interface MapOptions {
  /** Most URLs answered. */
  limit: number;
  /** include: page links and sitemap URLs; skip: page links only; only: sitemap URLs only. */
  sitemap: SitemapMode;
  /** Rank the URLs by relevance to this query (map-search.ts). */
  search?: string;
  /** Default true. */
  ignoreQueryParameters?: boolean;
  /** Default true. */
  deduplicateSimilarURLs?: boolean;
  /** Absent: every host; false: the start URL's host; true: it and its subdomains. */
  includeSubdomains?: boolean;
  signal?: AbortSignal;
}

interface PageLinks {
  /** Where the page really is, after redirects. */
  url: string;
  urls: string[];
  /** The words of its links (when searching). */
  texts: Map<string, string>;
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
    const dedupe: DedupeOptions = {
      ignoreQueryParameters: opts.ignoreQueryParameters ?? true,
      deduplicateSimilarURLs: opts.deduplicateSimilarURLs ?? true,
    };
    const searching = opts.search !== undefined;
    const asked = new URL(url).hostname;
    /** The page's links may be on the host it redirects to as well; sitemaps are the asked host's. */
    const hosts = [asked];
    const onSite = (u: string, among: readonly string[] = hosts) => {
      if (opts.includeSubdomains === undefined) return true;
      const parsed = new URL(u);
      return among.some((h) => sameSite(parsed, h, opts.includeSubdomains === true, true));
    };
    const pick = (found: string) => {
      const listed = listedForm(found, dedupe);
      return onSite(listed, [asked]) ? { url: listed, key: urlKey(listed, dedupe) } : null;
    };
    const sitemapLimit = searching ? Math.max(opts.limit, SEARCH_POOL) : opts.limit;
    const fromSitemaps =
      opts.sitemap === 'skip' ? Promise.resolve([]) : this.sitemapLinks(url, sitemapLimit, pick, signal);
    fromSitemaps.catch(() => {}); // awaited below unless the page fails first
    try {
      const page = opts.sitemap === 'only' ? null : await this.pageLinks(url, searching, signal);
      if (page && !hosts.includes(new URL(page.url).hostname)) hosts.push(new URL(page.url).hostname);
      const set = new UrlSet(dedupe);
      // Without a search the list is cut as it fills; with one, after the ranking.
      const full = () => !searching && set.size >= opts.limit;
      for (const u of page?.urls ?? []) {
        if (full()) break;
        if (onSite(u)) set.add(u);
      }
      for (const u of await fromSitemaps) {
        if (full()) break;
        set.add(u);
      }
      if (!searching) return { urls: set.urls };
      const texts = new Map<string, string>();
      for (const [u, text] of page?.texts ?? []) {
        const key = urlKey(listedForm(u, dedupe), dedupe);
        texts.set(key, texts.has(key) ? `${texts.get(key)} ${text}` : text);
      }
      const ranked = rankUrls(set.urls, opts.search ?? '', (u) => texts.get(urlKey(u, dedupe)));
      return { urls: ranked.slice(0, opts.limit) };
    } finally {
      done.abort();
    }
  }

  /** The start page's links (absolute, normalised, deduplicated, in page order); errors propagate. */
  private async pageLinks(url: string, withTexts: boolean, signal: AbortSignal): Promise<PageLinks> {
    // A huge page is cut rather than refused: its first megabytes still hold links.
    const doc = await fetchDocument(this.upstreams, url, { attempts: this.attempts, truncate: true, signal });
    if (doc.kind !== 'html') return { url: doc.url, urls: [], texts: new Map() };
    return {
      url: doc.url,
      urls: extractLinks(doc.text, doc.url),
      texts: withTexts ? linkTexts(doc.text, doc.url) : new Map(),
    };
  }

  /** robots.txt then sitemaps, under one time budget: a slow site shortens the list past it. */
  private async sitemapLinks(
    url: string,
    limit: number,
    pick: (url: string) => { url: string; key: string } | null,
    signal: AbortSignal,
  ): Promise<string[]> {
    const deadline = Date.now() + SITEMAP_BUDGET_MS;
    const robots = await fetchRobots(this.upstreams, url, { signal });
    const timeBudgetMs = Math.max(0, deadline - Date.now());
    return sitemapUrls(this.upstreams, url, robots.sitemaps, { limit, pick, signal, timeBudgetMs });
  }
}
