// A check of a site: map it (sitemaps and links, up to `limit` URLs) and report the pages added and
// removed since the last check; with `scrape`, also scrape each page and report those whose content
// changed (by a hash of the normalised text, so timestamps and tokens do not count), with their
// diffs when asked (the text of at most MAX_SITE_DIFF_PAGES pages is kept for that).
import { prices } from '../../billing/prices.js';
import type { ScrapedPage, ScrapeOptions } from '../../sources/web/scraper.js';
import { MAX_SITE_DIFF_PAGES } from '../kinds.js';
import { comparePages, contentHash } from '../page-diff.js';
import type { CheckContext, CheckOutcome } from './check.js';

/** Pages scraped at once in one check. */
const SCRAPE_CONCURRENCY = 4;
/** The text kept per page for diffs. */
const KEPT_TEXT_CHARS = 200_000;

export interface SiteState {
  urls: string[];
  /** url → content hash (with `scrape`). */
  hashes?: Record<string, string>;
  /** url → Markdown (with `diff`). */
  texts?: Record<string, string>;
}

export interface SiteCheckDeps {
  map(
    url: string,
    opts: { limit: number; sitemap: 'include'; signal?: AbortSignal },
  ): Promise<{ urls: string[] }>;
  scrape(url: string, options: ScrapeOptions): Promise<ScrapedPage>;
}

export interface SiteCheckInput {
  url: string;
  limit: number;
  scrape: boolean;
  /** Pages scraped at most (a short balance); the rest keep their last hash and text. */
  scrapeLimit?: number;
  diff: boolean;
  render?: ScrapeOptions['render'];
}

interface Scraped {
  url: string;
  hash: string;
  text: string;
}

/** Scrapes pages a few at a time; a page that fails is left out of this check (not reported). */
async function scrapeAll(
  deps: SiteCheckDeps,
  urls: readonly string[],
  input: SiteCheckInput,
  ctx: CheckContext,
): Promise<Scraped[]> {
  const out: Scraped[] = [];
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const url = urls[next++]!;
      ctx.signal.throwIfAborted();
      try {
        const page = await deps.scrape(url, {
          ...(input.render && { render: input.render }),
          signal: ctx.signal,
          account: ctx.accountId,
        });
        out.push({ url, hash: contentHash(page.content), text: page.content.slice(0, KEPT_TEXT_CHARS) });
      } catch {
        ctx.signal.throwIfAborted();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(SCRAPE_CONCURRENCY, urls.length) }, worker));
  return out;
}

export async function checkSite(
  deps: SiteCheckDeps,
  input: SiteCheckInput,
  state: SiteState | null,
  ctx: CheckContext,
): Promise<CheckOutcome<SiteState>> {
  const { urls } = await deps.map(input.url, { limit: input.limit, sitemap: 'include', signal: ctx.signal });
  let cost = prices.syncRequest;
  const toScrape = urls.slice(0, input.scrapeLimit ?? urls.length);
  const scraped = input.scrape ? await scrapeAll(deps, toScrape, input, ctx) : [];
  cost += prices.syncRequest * scraped.length;
  const next: SiteState = { urls: [...urls].sort() };
  if (input.scrape) {
    next.hashes = Object.fromEntries(scraped.map((p) => [p.url, p.hash]));
    // Pages that failed this time keep their last hash, so they are not reported changed next time.
    for (const [url, hash] of Object.entries(state?.hashes ?? {}))
      if (urls.includes(url)) next.hashes[url] ??= hash;
    if (input.diff) {
      next.texts = Object.fromEntries(scraped.slice(0, MAX_SITE_DIFF_PAGES).map((p) => [p.url, p.text]));
      // Pages not scraped this time keep their text, so their next change still comes with a diff.
      for (const [url, text] of Object.entries(state?.texts ?? {})) {
        if (urls.includes(url) && Object.keys(next.texts).length < MAX_SITE_DIFF_PAGES)
          next.texts[url] ??= text;
      }
    }
  }
  if (!state) return { state: next, events: [], cost, baseline: true };

  const before = new Set(state.urls);
  const now = new Set(urls);
  const added = urls.filter((u) => !before.has(u));
  const removed = state.urls.filter((u) => !now.has(u));
  const changed = scraped
    .filter((p) => state.hashes?.[p.url] !== undefined && state.hashes[p.url] !== p.hash)
    .map((p) => {
      const old = state.texts?.[p.url];
      if (!input.diff || old === undefined) return { url: p.url };
      const cmp = comparePages(old, p.text, []);
      return { url: p.url, diff: cmp.diff, sections: cmp.sections };
    });
  if (!added.length && !removed.length && !changed.length)
    return { state: next, events: [], cost, baseline: false };
  return {
    state: next,
    events: [
      {
        type: 'site.changed',
        dedupeKey: `site:${ctx.jobId}`,
        data: { url: input.url, added, removed, ...(input.scrape && { changed }) },
      },
    ],
    cost,
    baseline: false,
  };
}
