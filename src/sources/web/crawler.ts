// The crawl engine: breadth-first from a start URL, within a scope, under robots.txt, with bounded
// concurrency overall and per host, each page fetched once. What "scrape a page" and "read robots"
// mean is handed in, so the engine is the same for the job and for the benchmark.
//
// Semantics (each one a complaint users make of peer crawlers, defined precisely here):
// - Scope: the start URL's host (and its subdomains with `allowSubdomains`), and only paths under the
//   start URL's path ("child paths": /blog covers /blog and /blog/x, not /blog-x nor /about) unless
//   `entireDomain`. A start URL that names a file (/docs/index.html) scopes to its folder (/docs/).
// - `maxDepth`: link hops from the start page (0: the start page alone), not URL path depth.
// - `includePaths`/`excludePaths`: regular expressions on the URL path (RE2: linear time, no
//   backtracking blow-ups), applied to discovered links before they are queued, so `limit` counts
//   only pages that pass them. The start page is always fetched (to find links) but is returned and
//   counted only if it passes them too.
// - `limit`: pages returned (and billed). Failed pages do not count; they are listed in `failures`.
// - Every URL is normalised before it is queued, and a page reached through a redirect is keyed by
//   its final URL too, so no page is fetched or returned twice. With `ignoreQueryParameters` URLs
//   differing only in their query are one page (fetched without it; the start URL is fetched as
//   given); with `deduplicateSimilarURLs`, www./bare, http/https, a trailing slash and a trailing
//   index.html|htm|php are one page (url-dedupe.ts), the first form seen being the one fetched, and
//   the scope's host is www.-blind too.
// - `sitemap`: skip (default; links only), include (after the start page, the site's sitemap URLs in
//   scope and passing the filters are queued as depth-0 pages, ahead of the start page's links; links
//   are followed from them as from the start page), only (those sitemap URLs alone: the start page is
//   not fetched — it is crawled only if a sitemap lists it — and no link is followed; a site whose
//   sitemaps list nothing in scope fails the crawl). Sitemaps are read where the start page really
//   is (after its redirects), from its robots.txt Sitemap: lines, else /sitemap.xml.
// - Politeness: at most `concurrency` pages at once, `perHostConcurrency` per host, and one at a time
//   to a host until its robots.txt is read. A host with a pause (`delayMs`, or its robots.txt
//   Crawl-delay: the larger) gets one request at a time, the next starting that long after the
//   previous one ended.
import type { ScrapedPage } from './scraper.js';
import type { SitemapMode } from './sitemaps.js';
import { normalizeUrl, sameSite } from './url.js';
import { type DedupeOptions, listedForm, urlKey } from './url-dedupe.js';

export interface PathFilter {
  test(path: string): boolean;
}

export interface CrawlSettings {
  url: string;
  limit: number;
  maxDepth: number;
  include: readonly PathFilter[];
  exclude: readonly PathFilter[];
  allowSubdomains: boolean;
  entireDomain: boolean;
  /** Pages fetched at once. */
  concurrency: number;
  /** Pages fetched at once from one host. */
  perHostConcurrency: number;
  /** Default skip (see the header). */
  sitemap?: SitemapMode;
  /** Default false. */
  ignoreQueryParameters?: boolean;
  /** Default false (the API's default is true). */
  deduplicateSimilarURLs?: boolean;
  /** Pause after each request to a host before the next one to it, in ms (default 0). */
  delayMs?: number;
  /** Stop taking new pages after this long and finish with what was scraped (0: no limit). */
  deadlineMs?: number;
  /**
   * When this aborts, the crawl ends at once with the pages it has (`stoppedBy: 'stopped'`): pages
   * being fetched are abandoned (the caller aborts `signal` too, after it, to cut them short), and no
   * page is handed to `onPage` after it.
   */
  stop?: AbortSignal;
}

export interface CrawlRobots {
  isAllowed(url: string): boolean;
  crawlDelayMs: number | null;
  /** Its Sitemap: URLs (where sitemap is include or only). */
  sitemaps?: readonly string[];
}

export interface CrawlSitemapOptions {
  /** Most URLs wanted (of those `pick` keeps). */
  limit: number;
  /** The form a URL is queued in and the key of its page; null: not for this crawl. */
  pick(url: string): { url: string; key: string } | null;
  signal: AbortSignal;
}

/** What the engine reads of a scraped page: where it ended up, and its links to follow. */
export type LinkedPage = Pick<ScrapedPage, 'url' | 'urls'>;

export interface CrawlDeps<P extends LinkedPage = ScrapedPage> {
  scrape(url: string, signal: AbortSignal): Promise<P>;
  /** robots.txt of an origin (asked once per origin per crawl). */
  robots(origin: string, signal: AbortSignal): Promise<CrawlRobots>;
  /** A page to return, numbered from 0 in the order scraped. */
  onPage(page: P, index: number): void | Promise<void>;
  /**
   * The page URLs of the site's sitemaps (`robotsSitemaps`, else the site's /sitemap.xml), in
   * order; needed where sitemap is include or only. Resolves with what it found in its own time
   * budget; rejects only when `signal` aborts.
   */
  sitemapUrls?(
    startUrl: string,
    robotsSitemaps: readonly string[],
    opts: CrawlSitemapOptions,
  ): Promise<string[]>;
}

export interface CrawlFailure {
  url: string;
  error: string;
  message: string;
}

export interface CrawlOutcome {
  pagesScraped: number;
  pagesFailed: number;
  /** The first failures (capped), for the poll answer. */
  failures: CrawlFailure[];
  /** Links left out because robots.txt disallows them. */
  skippedByRobots: number;
  /** Why the crawl ended before running out of links, if it did. */
  stoppedBy: 'limit' | 'deadline' | 'stopped' | null;
}

/** Thrown when the start page itself cannot be crawled: the crawl as a whole fails. */
export class StartPageError extends Error {
  constructor(
    override readonly cause: unknown,
    message: string,
    /** What the failure is when there is no cause: robots.txt refusing (default) or nothing to crawl. */
    readonly code: 'forbidden' | 'not_found' = 'forbidden',
  ) {
    super(message);
  }
}

const MAX_LISTED_FAILURES = 200;

interface Task {
  url: string;
  depth: number;
  host: string;
  /** The start page: its failure fails the crawl, and its redirect moves the scope. */
  start: boolean;
}

/** The path prefix that scopes a crawl: the start path's folder when it names a file. */
function scopePrefix(start: URL): string {
  let path = start.pathname;
  const last = path.slice(path.lastIndexOf('/') + 1);
  if (last.includes('.')) path = path.slice(0, path.lastIndexOf('/') + 1);
  return path.replace(/\/+$/, '');
}

export async function crawl<P extends LinkedPage>(
  settings: CrawlSettings,
  deps: CrawlDeps<P>,
  signal: AbortSignal,
): Promise<CrawlOutcome> {
  const startUrl = normalizeUrl(settings.url);
  if (!startUrl) throw new StartPageError(null, 'the start URL is not an http(s) URL');
  const mode = settings.sitemap ?? 'skip';
  const dedupe: DedupeOptions = {
    ignoreQueryParameters: settings.ignoreQueryParameters ?? false,
    deduplicateSimilarURLs: settings.deduplicateSimilarURLs ?? false,
  };
  const keyOf = (url: string) => urlKey(url, dedupe);
  const delayMs = Math.max(0, settings.delayMs ?? 0);
  // The scope is that of where the start page really is (http → https, example.com → www.…).
  let start = new URL(startUrl);
  let prefix = scopePrefix(start);
  const startedAt = Date.now();

  const inScope = (url: URL) =>
    sameSite(url, start.hostname, settings.allowSubdomains, dedupe.deduplicateSimilarURLs) &&
    (settings.entireDomain ||
      prefix === '' ||
      url.pathname === prefix ||
      url.pathname.startsWith(`${prefix}/`));
  const passesFilters = (path: string) =>
    (settings.include.length === 0 || settings.include.some((f) => f.test(path))) &&
    !settings.exclude.some((f) => f.test(path));

  /** Keys (urlKey) of the pages queued or reached. */
  const seen = new Set<string>();
  const queue: Task[] = [];
  if (mode !== 'only') {
    seen.add(keyOf(startUrl));
    queue.push({ url: startUrl, depth: 0, host: start.host, start: true });
  }
  let head = 0;
  const robotsByOrigin = new Map<string, Promise<CrawlRobots>>();
  const hostActive = new Map<string, number>();
  /** When a host may next be asked (after its pause). */
  const hostNextAt = new Map<string, number>();
  /** A host's pause between requests, once its robots.txt is read (until then: one at a time). */
  const hostPause = new Map<string, number>();
  const outcome: CrawlOutcome = {
    pagesScraped: 0,
    pagesFailed: 0,
    failures: [],
    skippedByRobots: 0,
    stoppedBy: null,
  };
  let active = 0;
  let fetched = 0;
  // Failures do not count against `limit`; this keeps a site of broken links from running forever.
  const maxFetches = settings.limit * 2 + 20;
  let startError: StartPageError | null = null;
  const stopped = () => settings.stop?.aborted === true;

  const robotsFor = (url: URL) => {
    let r = robotsByOrigin.get(url.origin);
    if (!r) {
      r = deps.robots(url.origin, signal);
      robotsByOrigin.set(url.origin, r);
    }
    return r;
  };

  /** Queues a link or a sitemap URL unless its page is known, out of scope or filtered out. */
  const enqueue = (found: string, depth: number) => {
    const url = listedForm(found, dedupe);
    const key = keyOf(url);
    if (seen.has(key)) return;
    const u = new URL(url);
    if (!inScope(u) || !passesFilters(u.pathname)) return;
    seen.add(key);
    queue.push({ url, depth, host: u.host, start: false });
  };

  /** Queues the sitemap URLs in scope as depth-0 pages; answers how many were queued. */
  const seedFromSitemaps = async (): Promise<number> => {
    if (!deps.sitemapUrls) return 0;
    const robots = await robotsFor(start);
    const pick = (found: string) => {
      const url = listedForm(found, dedupe);
      const key = keyOf(url);
      if (seen.has(key)) return null;
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        return null;
      }
      return inScope(u) && passesFilters(u.pathname) ? { url, key } : null;
    };
    const urls = await deps.sitemapUrls(start.href, robots.sitemaps ?? [], {
      limit: maxFetches,
      pick,
      signal,
    });
    const before = queue.length;
    for (const url of urls) enqueue(url, 0);
    return queue.length - before;
  };

  /** After a request to `host`: it rests for its pause before the next one. */
  const rest = (host: string) => {
    const pause = hostPause.get(host) ?? 0;
    if (pause > 0) hostNextAt.set(host, Date.now() + pause);
  };

  const recordFailure = (url: string, err: unknown) => {
    outcome.pagesFailed++;
    if (outcome.failures.length < MAX_LISTED_FAILURES) {
      const e = err as { code?: string; message?: string };
      outcome.failures.push({
        url,
        error: typeof e?.code === 'string' && !e.code.startsWith('E') ? e.code : 'upstream_error',
        message: e?.message ?? String(err),
      });
    }
  };

  /** Looks for tasks to start (the scheduler, once it runs). */
  let wake = () => {};

  const visit = async (task: Task): Promise<void> => {
    const isStart = task.start;
    const robots = await robotsFor(new URL(task.url));
    const known = hostPause.has(task.host);
    hostPause.set(task.host, Math.max(delayMs, robots.crawlDelayMs ?? 0));
    // The host's other tasks waited for its robots.txt: they may go now, as its rules allow.
    if (!known) wake();
    if (!robots.isAllowed(task.url)) {
      if (isStart)
        throw new StartPageError(null, `robots.txt of ${task.host} disallows crawling ${task.url}`);
      outcome.skippedByRobots++;
      return;
    }
    let page: P;
    try {
      page = await deps.scrape(task.url, signal);
    } catch (err) {
      if (signal.aborted || stopped()) throw err;
      if (isStart) throw new StartPageError(err, (err as Error)?.message ?? String(err));
      recordFailure(task.url, err);
      return;
    } finally {
      rest(task.host);
    }
    // Keyed by where it ended up too: two links that redirect to one page give one page.
    const finalUrl = normalizeUrl(page.url) ?? task.url;
    const final = new URL(finalUrl);
    const finalKey = keyOf(finalUrl);
    if (finalKey !== keyOf(task.url)) {
      if (seen.has(finalKey)) return;
      seen.add(finalKey);
    }
    if (finalUrl !== task.url) {
      if (isStart) {
        start = final;
        prefix = scopePrefix(final);
      } else if (!inScope(final)) {
        return; // redirected out of the crawl's scope: not this site's page
      }
    }
    const counted = passesFilters(final.pathname);
    if (stopped()) return;
    if (counted) {
      if (outcome.pagesScraped >= settings.limit) return;
      await deps.onPage(page, outcome.pagesScraped++);
    }
    if (isStart && mode === 'include') await seedFromSitemaps();
    if (task.depth >= settings.maxDepth || mode === 'only') return;
    for (const link of page.urls) enqueue(link, task.depth + 1);
  };

  await new Promise<void>((resolve, reject) => {
    let timer: NodeJS.Timeout | null = null;
    let timerAt = 0;
    let settled = false;
    const finish = (err?: unknown) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      settings.stop?.removeEventListener('abort', onStop);
      if (err) reject(err);
      else resolve();
    };
    const onAbort = () => finish(signal.reason ?? new Error('aborted'));
    const onStop = () => {
      outcome.stoppedBy = 'stopped';
      finish();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (settings.stop?.aborted) return onStop();
    settings.stop?.addEventListener('abort', onStop, { once: true });

    const budgetLeft = () => outcome.pagesScraped + active < settings.limit && fetched < maxFetches;
    // sitemap=only: the queue is the sitemaps' URLs, read before anything is fetched.
    let seeding = mode === 'only';
    if (seeding) {
      seedFromSitemaps()
        .then(
          (queued) => {
            if (queued === 0)
              startError ??= new StartPageError(
                null,
                `no sitemap of ${start.host} lists a page within the crawl's scope`,
                'not_found',
              );
          },
          (err) => {
            if (!signal.aborted && !stopped()) startError ??= new StartPageError(err, String(err));
          },
        )
        .finally(() => {
          seeding = false;
          pump();
        });
    }
    const pump = () => {
      if (settled) return;
      if (startError) return active === 0 && !seeding ? finish(startError) : undefined;
      if (settings.deadlineMs && Date.now() - startedAt > settings.deadlineMs && head < queue.length) {
        outcome.stoppedBy = 'deadline';
        head = queue.length;
      }
      let waitUntil = Number.POSITIVE_INFINITY;
      // Take due tasks in order, skipping (for now) those whose host is busy or resting.
      for (let i = head; i < queue.length && active < settings.concurrency && budgetLeft(); i++) {
        const task = queue[i]!;
        const busy = hostActive.get(task.host) ?? 0;
        const nextAt = hostNextAt.get(task.host) ?? 0;
        const pause = hostPause.get(task.host);
        const perHost = pause === undefined || pause > 0 ? 1 : settings.perHostConcurrency;
        if (busy >= perHost) continue;
        if (nextAt > Date.now()) {
          waitUntil = Math.min(waitUntil, nextAt);
          continue;
        }
        // Move the task to the head (the skipped ones keep their order after it).
        if (i !== head) {
          queue.splice(i, 1);
          queue.splice(head, 0, task);
        }
        head++;
        active++;
        fetched++;
        hostActive.set(task.host, busy + 1);
        visit(task)
          .catch((err) => {
            if (err instanceof StartPageError) startError = err;
            else if (!signal.aborted && !stopped()) recordFailure(task.url, err);
          })
          .finally(() => {
            active--;
            hostActive.set(task.host, (hostActive.get(task.host) ?? 1) - 1);
            pump();
          });
      }
      if (active === 0 && !seeding && (head >= queue.length || !budgetLeft())) {
        if (head < queue.length && outcome.stoppedBy === null) outcome.stoppedBy = 'limit';
        return finish();
      }
      // A resting host's next task goes when its pause ends, whatever else is running then.
      if (waitUntil !== Number.POSITIVE_INFINITY && (!timer || waitUntil < timerAt)) {
        if (timer) clearTimeout(timer);
        timerAt = waitUntil;
        timer = setTimeout(() => {
          timer = null;
          pump();
        }, waitUntil - Date.now());
      }
    };
    wake = pump;
    pump();
  });
  return outcome;
}
