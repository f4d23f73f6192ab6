// The crawl job kind: its body, the most it can cost (1 + limit), how it runs (the crawl engine over
// our scraper and robots.txt, each page stored as it comes) and what it finally costs (1 + pages;
// a cancelled crawl keeps the pages it has and costs 1 + those).
import { type Static, Type } from '@sinclair/typebox';
import { RE2JS } from 're2js';
import { prices } from '../../billing/prices.js';
import { invalid, permanent } from '../../errors.js';
import { ItemAppender, type JobItems } from '../../jobs/items.js';
import type { JobRegistry } from '../../jobs/registry.js';
import type { SafeFetcher } from '../../net/safe-fetch.js';
import type { Upstreams } from '../../net/upstream.js';
import { type CrawlOutcome, crawl, StartPageError } from './crawler.js';
import { fetchRobots } from './robots.js';
import type { Scraper } from './scraper.js';

export const CRAWL_LIMITS = { maxPages: 5000, patterns: 20, patternLength: 200 } as const;

const PathPatterns = (description: string) =>
  Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: CRAWL_LIMITS.patternLength }), {
      maxItems: CRAWL_LIMITS.patterns,
      description,
    }),
  );

export const CrawlBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 4096, description: 'Where the crawl starts (http or https)' }),
  limit: Type.Integer({
    minimum: 1,
    maximum: CRAWL_LIMITS.maxPages,
    default: 100,
    description: `Most pages returned and billed (1–${CRAWL_LIMITS.maxPages})`,
  }),
  maxDepth: Type.Integer({
    minimum: 0,
    maximum: 20,
    default: 10,
    description: 'Most link hops from the start page (0: the start page alone)',
  }),
  includePaths: PathPatterns(
    'Only pages whose URL path matches one of these regular expressions (RE2 syntax, e.g. ^/blog/)',
  ),
  excludePaths: PathPatterns('No page whose URL path matches one of these regular expressions (RE2 syntax)'),
  allowSubdomains: Type.Boolean({
    default: false,
    description: 'Also follow links to subdomains of the start host',
  }),
  entireDomain: Type.Boolean({
    default: false,
    description: 'Follow every path of the host, not only those under the start URL (extension)',
  }),
});

export type CrawlInput = Static<typeof CrawlBody>;

function compilePatterns(patterns: readonly string[] | undefined, param: string) {
  return (patterns ?? []).map((p, i) => {
    try {
      return RE2JS.compile(p);
    } catch (err) {
      throw invalid(`${param}[${i}]`, `not a valid regular expression (${(err as Error).message})`);
    }
  });
}

/** The job input of a validated body: the URL checked, the patterns compiled once to reject bad ones. */
export function crawlInput(body: CrawlInput, fetcher: Pick<SafeFetcher, 'checkUrl'>): CrawlInput {
  fetcher.checkUrl(body.url, 'url');
  compilePatterns(body.includePaths, 'includePaths');
  compilePatterns(body.excludePaths, 'excludePaths');
  return body;
}

export interface CrawlJobDeps {
  registry: JobRegistry;
  scraper: Scraper;
  upstreams: Upstreams;
  items: JobItems;
  concurrency: number;
  perHostConcurrency: number;
}

/** A crawl stops taking new pages after this long and completes with what it has. */
const CRAWL_DEADLINE_MS = 50 * 60_000;

export type CrawlResult = CrawlOutcome;

export function registerCrawl(deps: CrawlJobDeps): void {
  deps.registry.register<CrawlInput, CrawlResult>({
    kind: 'crawl',
    perAccount: 'crawls',
    inputSchema: CrawlBody,
    estimate: (input) => prices.crawlBase + prices.crawlPerPage * input.limit,
    // A crawl cancelled before its first page has nothing to keep: it costs nothing.
    cost: (_input, result) =>
      result.stoppedBy === 'stopped' && result.pagesScraped === 0
        ? 0
        : prices.crawlBase + prices.crawlPerPage * result.pagesScraped,
    concurrency: 2,
    timeoutMs: CRAWL_DEADLINE_MS + 10 * 60_000,
    async run(ctx, input) {
      // A rerun (the worker before this one died) starts over.
      await deps.items.clear(ctx.jobId);
      // Each page is stored within a tenth of a second (batched when they come faster): a poll
      // counts every page, not steps of a batch.
      const pages = new ItemAppender(deps.items, ctx.jobId);
      // Cancelled by its owner: the crawl stops and ends with the pages it has (kept and billed);
      // any other abort (time limit, shutdown) fails the attempt as before. Listening before the
      // engine does, the stop comes first.
      const stop = new AbortController();
      const aborted = () => ctx.cancelled && stop.abort(ctx.signal.reason);
      if (ctx.signal.aborted) aborted();
      else ctx.signal.addEventListener('abort', aborted, { once: true });
      try {
        const outcome = await crawl(
          {
            url: input.url,
            limit: input.limit,
            maxDepth: input.maxDepth,
            include: compilePatterns(input.includePaths, 'includePaths'),
            exclude: compilePatterns(input.excludePaths, 'excludePaths'),
            allowSubdomains: input.allowSubdomains,
            entireDomain: input.entireDomain,
            concurrency: deps.concurrency,
            perHostConcurrency: deps.perHostConcurrency,
            deadlineMs: CRAWL_DEADLINE_MS,
            stop: stop.signal,
          },
          {
            scrape: (url, signal) => deps.scraper.scrapeNow(url, { signal, account: ctx.accountId }),
            robots: (origin, signal) => fetchRobots(deps.upstreams, origin, { signal }),
            onPage: (page) => pages.add(page),
          },
          ctx.signal,
        );
        await pages.flush();
        return outcome;
      } catch (err) {
        // The start page failing fails the crawl: as its own error (a site error may be retried),
        // or, when robots.txt refuses it, for good.
        await pages.flush().catch(() => {});
        await deps.items.clear(ctx.jobId);
        if (err instanceof StartPageError) throw err.cause ?? permanent(err.message, 'forbidden');
        throw err;
      }
    },
  });
}
