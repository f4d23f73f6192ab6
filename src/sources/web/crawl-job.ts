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
import { StringEnum } from '../../schemas.js';
import { crawlPoll } from './crawl-poll.js';
import { type CrawlOutcome, crawl, type LinkedPage, StartPageError } from './crawler.js';
import type { WebDocuments } from './documents.js';
import { fetchRobots } from './robots.js';
import {
  maxScrapeExtras,
  needsBrowser,
  ScrapeOptionsSchema,
  scrapeRequest,
  storedScrapeRequest,
} from './scrape-options.js';
import type { Scraper } from './scraper.js';
import { sitemapUrls } from './sitemaps.js';

/** The kind's name: its queue, and the `kind` its route submits. */
export const CRAWL_KIND = 'crawl';

/** Live crawls an account may have: UNFURL_ACCOUNT_MAX_CRAWLS. */
export const CRAWLS_LIMIT = { key: 'crawls', name: 'crawls' } as const satisfies PerAccountLimit<
  keyof Config['accountJobLimits']
>;

export const CRAWL_LIMITS = {
  maxPages: 5000,
  patterns: 20,
  patternLength: 200,
  /** `delay`, in seconds. */
  maxDelay: 60,
  /** `maxConcurrency`'s schema bound: UNFURL_CRAWL_CONCURRENCY's largest value. */
  maxConcurrency: 256,
} as const;

/** A crawl stops taking new pages after this long and completes with what it has. */
export const CRAWL_DEADLINE_MS = 50 * 60_000;

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
  // No schema default: a default would make `entireDomain` and `crawlEntireDomain` look set, and
  // disagreeing, when the caller sets only one (false when neither is given).
  entireDomain: Type.Optional(
    Type.Boolean({
      description:
        'Follow every path of the host, not only those under the start URL (default false). Same as crawlEntireDomain',
    }),
  ),
  crawlEntireDomain: Type.Optional(
    Type.Boolean({
      description: "Firecrawl's name for entireDomain (default false); both may be given only if they agree",
    }),
  ),
  sitemap: StringEnum(['skip', 'include', 'only'] as const, {
    default: 'skip',
    description:
      "skip: follow links only; include: after the start page, also crawl the site's sitemap URLs within scope " +
      "(as depth-0 pages, before the start page's links; links are followed from them too); only: crawl the " +
      'sitemap URLs within scope alone — the start page is not fetched unless a sitemap lists it, no link is ' +
      'followed, and a site whose sitemaps list nothing within scope fails the crawl',
  }),
  ignoreQueryParameters: Type.Boolean({
    default: false,
    description:
      'URLs differing only in their query are one page, fetched without the query (the start URL is fetched as given)',
  }),
  deduplicateSimilarURLs: Type.Boolean({
    default: true,
    description:
      'www. or not, http or https, a trailing slash or not, and a trailing index.html, index.htm or index.php ' +
      'or not are one page, fetched once in the first form found; the scope treats www. and the bare host as one',
  }),
  delay: Type.Number({
    minimum: 0,
    maximum: CRAWL_LIMITS.maxDelay,
    default: 0,
    description:
      `Seconds to wait after each request to a host before the next one to it (0–${CRAWL_LIMITS.maxDelay}, fractions allowed); ` +
      'with a delay the host gets one request at a time. A robots.txt Crawl-delay that is longer wins. delay × limit may be at most ' +
      `${CRAWL_DEADLINE_MS / 1000} seconds (a crawl's run time)`,
  }),
  maxConcurrency: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: CRAWL_LIMITS.maxConcurrency,
      description:
        "Most pages fetched at once by this crawl (1 to the server's UNFURL_CRAWL_CONCURRENCY, 8 unless configured; the default)",
    }),
  ),
  scrapeOptions: Type.Optional(
    Type.Object(ScrapeOptionsSchema.properties, {
      additionalProperties: false,
      description:
        'Scrape each page with these options (those of POST /v1/web/scrape): pages are then answered as that route answers, each billed as that scrape',
    }),
  ),
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

/** The most one page of the crawl can cost: its own price and, with scrapeOptions, its formats' extras. */
export const crawlPagePrice = (input: Pick<CrawlInput, 'scrapeOptions'>) =>
  CRAWL_PRICES.perPage +
  (input.scrapeOptions ? maxScrapeExtras(storedScrapeRequest(input.scrapeOptions)) : 0);

/** The most a crawl of `limit` pages can cost. */
export const crawlEstimate = (limit: number, pagePrice: number = CRAWL_PRICES.perPage) =>
  CRAWL_PRICES.base + pagePrice * limit;

/**
 * The crawl a balance short of its estimate pays for: `limit` cut to the pages the balance covers
 * (the caller's limit kept as `requestedLimit`, so the result can say the credits stopped it).
 * Not even one page → 402.
 */
export function fitCrawlToBalance(input: CrawlJobInput, balance: number): CrawlJobInput {
  const pagePrice = crawlPagePrice(input);
  const pages = Math.floor((balance - CRAWL_PRICES.base) / pagePrice);
  if (pages < 1) {
    const smallest = crawlEstimate(1, pagePrice);
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

/**
 * The job input of a validated body: the URL checked, the patterns compiled once to reject bad ones,
 * `crawlEntireDomain` folded into `entireDomain`, and `delay` × `limit` kept within a crawl's run time.
 * With `maxConcurrency`, a `maxConcurrency` above it is refused (else the job lowers it).
 */
export function crawlInput(
  body: CrawlInput,
  fetcher: Pick<SafeFetcher, 'checkUrl'>,
  server: { maxConcurrency?: number } = {},
): CrawlInput {
  fetcher.checkUrl(body.url, 'url');
  if (body.scrapeOptions) scrapeRequest(body.scrapeOptions, 'scrapeOptions.');
  compilePatterns(body.includePaths, 'includePaths');
  compilePatterns(body.excludePaths, 'excludePaths');
  const { crawlEntireDomain, ...rest } = body;
  if (
    crawlEntireDomain !== undefined &&
    body.entireDomain !== undefined &&
    crawlEntireDomain !== body.entireDomain
  )
    throw invalid(
      'crawlEntireDomain',
      'says the opposite of entireDomain (its other name): give one of them',
    );
  const delay = body.delay ?? 0;
  const limit = body.limit ?? 100;
  const maxSeconds = CRAWL_DEADLINE_MS / 1000;
  if (delay * limit > maxSeconds)
    throw invalid(
      'delay',
      `${delay} s between requests × limit ${limit} pages is more than a crawl's ${maxSeconds} s: lower delay or limit (delay × limit ≤ ${maxSeconds})`,
    );
  if (server.maxConcurrency !== undefined && (body.maxConcurrency ?? 0) > server.maxConcurrency)
    throw invalid(
      'maxConcurrency',
      `must be at most ${server.maxConcurrency} (this server's crawl concurrency)`,
    );
  return { ...rest, entireDomain: body.entireDomain ?? crawlEntireDomain ?? false };
}

export interface CrawlJobDeps {
  registry: JobRegistry;
  scraper: Scraper;
  /** Pages scraped with scrapeOptions. */
  documents: Pick<WebDocuments, 'scrape'>;
  upstreams: Upstreams;
  items: JobItems;
  concurrency: number;
  perHostConcurrency: number;
  /** Pages one account renders at once: a crawl whose scrapeOptions need the browser goes no faster. */
  renderConcurrency: number;
}

export type CrawlResult = Omit<CrawlOutcome, 'stoppedBy'> & {
  /** `credits`: it reached the limit the balance cut, with more pages left to crawl. */
  stoppedBy: CrawlOutcome['stoppedBy'] | 'credits';
  /** With scrapeOptions: what the returned pages' formats cost beyond a page's price. */
  extras?: number;
};

/** A page as the engine follows it and the job stores it: a scraped page, or a document with its links. */
type CrawledPage = LinkedPage & { stored: unknown; extras: number };

/**
 * How a crawl scrapes a page: as GET /v1/web/scrape answers it, or with scrapeOptions as
 * POST /v1/web/scrape does — its links asked for too (the crawl follows them) and left out of the
 * stored document unless the caller asked for them.
 */
function pageScraper(
  deps: CrawlJobDeps,
  input: CrawlJobInput,
  ctx: { accountId: string; jobId: string },
): (url: string, signal: AbortSignal) => Promise<CrawledPage> {
  if (!input.scrapeOptions) {
    return async (url, signal) => {
      const page = await deps.scraper.scrapeNow(url, { signal, account: ctx.accountId });
      return { url: page.url, urls: page.urls, stored: page, extras: 0 };
    };
  }
  const asked = storedScrapeRequest(input.scrapeOptions);
  const request = { ...asked, links: true };
  return async (url, signal) => {
    const { document, extras } = await deps.documents.scrape(url, request, { ...ctx, signal });
    const urls = (document.links ?? []).map((link) => link.url);
    if (!asked.links) delete document.links;
    return { url: document.url, urls, stored: document, extras };
  };
}

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
    estimate: (input) => crawlEstimate(input.limit, crawlPagePrice(input)),
    fitToBalance: fitCrawlToBalance,
    // A crawl cancelled before its first page has nothing to keep: it costs nothing.
    cost: (_input, result) =>
      result.stoppedBy === 'stopped' && result.pagesScraped === 0
        ? 0
        : crawlEstimate(result.pagesScraped) + (result.extras ?? 0),
    concurrency: 2,
    timeoutMs: CRAWL_DEADLINE_MS + 10 * 60_000,
    async run(ctx, input) {
      // A rerun (the worker before this one died) starts over.
      await deps.items.clear(ctx.jobId);
      // Each page is stored within a tenth of a second (batched when they come faster): a poll
      // counts every page, not steps of a batch.
      const pages = new ItemAppender(deps.items, ctx.jobId);
      let extras = 0;
      const rendering = input.scrapeOptions ? needsBrowser(storedScrapeRequest(input.scrapeOptions)) : false;
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
            entireDomain: input.entireDomain ?? input.crawlEntireDomain ?? false,
            // Inputs stored before these options existed run as they did then (no sitemap, no
            // deduplication of similar URLs).
            sitemap: input.sitemap ?? 'skip',
            ignoreQueryParameters: input.ignoreQueryParameters ?? false,
            deduplicateSimilarURLs: input.deduplicateSimilarURLs ?? false,
            delayMs: Math.round((input.delay ?? 0) * 1000),
            concurrency: Math.min(
              input.maxConcurrency ?? deps.concurrency,
              deps.concurrency,
              rendering ? deps.renderConcurrency : deps.concurrency,
            ),
            perHostConcurrency: deps.perHostConcurrency,
            deadlineMs: CRAWL_DEADLINE_MS,
            stop: stop.signal,
          },
          {
            scrape: pageScraper(deps, input, ctx),
            robots: (origin, signal) => fetchRobots(deps.upstreams, origin, { signal }),
            sitemapUrls: (startUrl, roots, { limit, pick, signal }) =>
              sitemapUrls(deps.upstreams, startUrl, [...roots], { limit, pick, signal }),
            onPage: (page) => {
              extras += page.extras;
              return pages.add(page.stored);
            },
          },
          ctx.signal,
        );
        await pages.flush();
        const result = crawlResult(outcome, input);
        return input.scrapeOptions ? { ...result, extras } : result;
      } catch (err) {
        // The start page failing fails the crawl: as its own error (a site error may be retried),
        // or, when robots.txt refuses it, for good.
        await pages.flush().catch(() => {});
        await deps.items.clear(ctx.jobId);
        if (err instanceof StartPageError) throw err.cause ?? permanent(err.message, err.code);
        throw err;
      }
    },
  });
}
