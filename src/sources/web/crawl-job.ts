// The crawl job kind: its body, the most it can cost (1 + limit), how it runs (the crawl engine over
// our scraper and robots.txt, each page stored as it comes) and what it finally costs (1 + pages;
// a cancelled crawl keeps the pages it has and costs 1 + those). A balance short of 1 + limit cuts
// the limit to what it pays for (at least one page) instead of refusing the crawl.
import { type Static, Type } from '@sinclair/typebox';
import { RE2JS } from 're2js';
import { creditsText, type PriceRow } from '../../billing/prices.js';
import type { Config } from '../../config.js';
import { AppError, invalid, permanent } from '../../errors.js';
import { ItemAppender, type JobItems } from '../../jobs/items.js';
import type { JobRegistry } from '../../jobs/registry.js';
import type { PerAccountLimit } from '../../jobs/types.js';
import type { SafeFetcher } from '../../net/safe-fetch.js';
import type { Upstreams } from '../../net/upstream.js';
import { crawlPoll } from './crawl-poll.js';
import { type CrawlOutcome, crawl, StartPageError } from './crawler.js';
import { fetchRobots } from './robots.js';
import type { Scraper } from './scraper.js';

/** The kind's name: its queue, and the `kind` its route submits. */
export const CRAWL_KIND = 'crawl';

/** Live crawls an account may have: UNFURL_ACCOUNT_MAX_CRAWLS. */
export const CRAWLS_LIMIT = { key: 'crawls', name: 'crawls' } as const satisfies PerAccountLimit<
  keyof Config['accountJobLimits']
>;

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
    description: `Most pages returned and billed (1–${CRAWL_LIMITS.maxPages}); a balance short of 1 + limit credits cuts it to the pages the balance pays for`,
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

/** A crawl's job input: the body, and the limit the caller asked for when the balance cut it. */
export type CrawlJobInput = CrawlInput & { requestedLimit?: number };

/** A crawl's rates, in credits: a base and each page scraped. */
export const CRAWL_PRICES = { base: 1, perPage: 1 } as const;

/** Its row of the price table. */
export const CRAWL_PRICE: PriceRow = {
  operation: 'Crawl',
  price: `${creditsText(CRAWL_PRICES.base)} + ${CRAWL_PRICES.perPage} per page`,
};

/** The most a crawl of `limit` pages can cost. */
export const crawlEstimate = (limit: number) => CRAWL_PRICES.base + CRAWL_PRICES.perPage * limit;

/**
 * The crawl a balance short of its estimate pays for: `limit` cut to the pages the balance covers
 * (the caller's limit kept as `requestedLimit`, so the result can say the credits stopped it).
 * Not even one page → 402.
 */
export function fitCrawlToBalance(input: CrawlJobInput, balance: number): CrawlJobInput {
  const pages = Math.floor((balance - CRAWL_PRICES.base) / CRAWL_PRICES.perPage);
  if (pages < 1) {
    const smallest = crawlEstimate(1);
    throw new AppError(
      'insufficient_credits',
      `A crawl needs at least ${creditsText(smallest)} (one page) and the balance is ${creditsText(balance)}; a balance short of 1 + limit runs the crawl with the pages it pays for. Buy more: GET /v1/credits/packages, then POST /v1/credits/purchase.`,
      `needed=${smallest} balance=${balance}`,
    );
  }
  return {
    ...input,
    limit: Math.min(input.limit, pages),
    requestedLimit: input.requestedLimit ?? input.limit,
  };
}

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

export type CrawlResult = Omit<CrawlOutcome, 'stoppedBy'> & {
  /** `credits`: it reached the limit the balance cut, with more pages left to crawl. */
  stoppedBy: CrawlOutcome['stoppedBy'] | 'credits';
};

/** The engine's outcome, saying `credits` where the limit it reached was the balance's, not the caller's. */
function crawlResult(outcome: CrawlOutcome, input: CrawlJobInput): CrawlResult {
  const cut = input.requestedLimit !== undefined && input.requestedLimit > input.limit;
  return cut && outcome.stoppedBy === 'limit' ? { ...outcome, stoppedBy: 'credits' } : outcome;
}

export function registerCrawl(deps: CrawlJobDeps): void {
  deps.registry.register<CrawlJobInput, CrawlResult>({
    kind: CRAWL_KIND,
    perAccount: CRAWLS_LIMIT,
    poll: crawlPoll,
    inputSchema: CrawlBody,
    price: CRAWL_PRICE,
    estimate: (input) => crawlEstimate(input.limit),
    fitToBalance: fitCrawlToBalance,
    // A crawl cancelled before its first page has nothing to keep: it costs nothing.
    cost: (_input, result) =>
      result.stoppedBy === 'stopped' && result.pagesScraped === 0 ? 0 : crawlEstimate(result.pagesScraped),
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
        return crawlResult(outcome, input);
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
