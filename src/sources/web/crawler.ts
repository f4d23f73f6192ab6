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
//   its final URL too, so no page is fetched or returned twice.
import type { ScrapedPage } from './scraper.js';
import { normalizeUrl, sameSite } from './url.js';

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
}

export interface CrawlDeps {
  scrape(url: string, signal: AbortSignal): Promise<ScrapedPage>;
  /** robots.txt of an origin (asked once per origin per crawl). */
  robots(origin: string, signal: AbortSignal): Promise<CrawlRobots>;
  /** A page to return, numbered from 0 in the order scraped. */
  onPage(page: ScrapedPage, index: number): void | Promise<void>;
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
  ) {
    super(message);
  }
}

const MAX_LISTED_FAILURES = 200;

interface Task {
  url: string;
  depth: number;
  host: string;
}

/** The path prefix that scopes a crawl: the start path's folder when it names a file. */
function scopePrefix(start: URL): string {
  let path = start.pathname;
  const last = path.slice(path.lastIndexOf('/') + 1);
  if (last.includes('.')) path = path.slice(0, path.lastIndexOf('/') + 1);
  return path.replace(/\/+$/, '');
}

export async function crawl(
  settings: CrawlSettings,
  deps: CrawlDeps,
  signal: AbortSignal,
): Promise<CrawlOutcome> {
  const startUrl = normalizeUrl(settings.url);
  if (!startUrl) throw new StartPageError(null, 'the start URL is not an http(s) URL');
  // The scope is that of where the start page really is (http → https, example.com → www.…).
  let start = new URL(startUrl);
  let prefix = scopePrefix(start);
  const startedAt = Date.now();

  const inScope = (url: URL) =>
    sameSite(url, start.hostname, settings.allowSubdomains) &&
    (settings.entireDomain ||
      prefix === '' ||
      url.pathname === prefix ||
      url.pathname.startsWith(`${prefix}/`));
  const passesFilters = (path: string) =>
    (settings.include.length === 0 || settings.include.some((f) => f.test(path))) &&
    !settings.exclude.some((f) => f.test(path));

  const seen = new Set<string>([startUrl]);
  const queue: Task[] = [{ url: startUrl, depth: 0, host: start.host }];
  let head = 0;
  const robotsByOrigin = new Map<string, Promise<CrawlRobots>>();
  const hostActive = new Map<string, number>();
  const hostNextAt = new Map<string, number>();
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

  const visit = async (task: Task): Promise<void> => {
    const isStart = task.depth === 0;
    const robots = await robotsFor(new URL(task.url));
    if (robots.crawlDelayMs) hostNextAt.set(task.host, Date.now() + robots.crawlDelayMs);
    if (!robots.isAllowed(task.url)) {
      if (isStart)
        throw new StartPageError(null, `robots.txt of ${task.host} disallows crawling ${task.url}`);
      outcome.skippedByRobots++;
      return;
    }
    let page: ScrapedPage;
    try {
      page = await deps.scrape(task.url, signal);
    } catch (err) {
      if (signal.aborted || stopped()) throw err;
      if (isStart) throw new StartPageError(err, (err as Error)?.message ?? String(err));
      recordFailure(task.url, err);
      return;
    }
    // Keyed by where it ended up too: two links that redirect to one page give one page.
    const finalUrl = normalizeUrl(page.url) ?? task.url;
    const final = new URL(finalUrl);
    if (finalUrl !== task.url) {
      if (seen.has(finalUrl)) return;
      seen.add(finalUrl);
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
    if (task.depth >= settings.maxDepth) return;
    for (const link of page.urls) {
      if (seen.has(link)) continue;
      const url = new URL(link);
      if (!inScope(url) || !passesFilters(url.pathname)) continue;
      seen.add(link);
      queue.push({ url: link, depth: task.depth + 1, host: url.host });
    }
  };

  await new Promise<void>((resolve, reject) => {
    let timer: NodeJS.Timeout | null = null;
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
    const pump = () => {
      if (settled) return;
      if (startError) return active === 0 ? finish(startError) : undefined;
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
        const perHost = nextAt > 0 ? 1 : settings.perHostConcurrency;
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
      if (active === 0) {
        if (head >= queue.length || !budgetLeft()) {
          if (head < queue.length && outcome.stoppedBy === null) outcome.stoppedBy = 'limit';
          return finish();
        }
        if (waitUntil !== Number.POSITIVE_INFINITY && !timer) {
          timer = setTimeout(() => {
            timer = null;
            pump();
          }, waitUntil - Date.now());
        }
      }
    };
    pump();
  });
  return outcome;
}
