// The batch_scrape job kind (POST /v1/web/batch/scrape): up to 1,000 URLs scraped with one set of
// scrape options, a few at a time (and fewer per host), each result stored as a job item in input
// order as it comes (a poll pages through them). URLs that are invalid or repeat an earlier one are
// reported in their place, never fetched. It holds 1 + each page's most and costs 1 + what each page
// that succeeded cost (its formats' extras included); a page that failed costs nothing. A cancel
// stops it with the pages it has, kept and billed.
import { type Static, Type } from '@sinclair/typebox';
import { abortable } from '../../abortable.js';
import { creditsText, type PriceRow, prices } from '../../billing/prices.js';
import { AppError, invalid } from '../../errors.js';
import { inOrder, limiter } from '../../jobs/in-order.js';
import { ItemAppender, type JobItems } from '../../jobs/items.js';
import type { JobRegistry } from '../../jobs/registry.js';
import type { JobPoll } from '../../jobs/types.js';
import {
  asObj,
  ErrorTextSchema,
  errorText,
  JobStatusSchema,
  NextLinkSchema,
  nextLink,
  storedResult,
} from '../../jobs/views.js';
import { Nullable } from '../../schemas.js';
import type { ScrapeDocument, WebDocuments } from './documents.js';
import {
  maxScrapeExtras,
  needsBrowser,
  ScrapeOptionsSchema,
  type ScrapeRequest,
  scrapeRequest,
  storedScrapeRequest,
} from './scrape-options.js';
import { normalizeUrl } from './url.js';

/** The kind's name: its queue, and the `kind` its route submits. */
export const BATCH_SCRAPE_KIND = 'batch_scrape';

export const BATCH_SCRAPE_LIMITS = { maxUrls: 1000, urlLength: 4096 } as const;

export const BatchScrapeBody = Type.Object(
  {
    urls: Type.Array(Type.String({ minLength: 1, maxLength: BATCH_SCRAPE_LIMITS.urlLength }), {
      minItems: 1,
      maxItems: BATCH_SCRAPE_LIMITS.maxUrls,
      description: `The pages (1–${BATCH_SCRAPE_LIMITS.maxUrls}); invalid and repeated ones are reported in their place, not fetched`,
    }),
    scrapeOptions: Type.Optional(ScrapeOptionsSchema),
  },
  { additionalProperties: false },
);

export type BatchScrapeBodyInput = Static<typeof BatchScrapeBody>;

/** The job's input: the body, with why each URL that will not be fetched is not (by its index). */
export type BatchScrapeInput = BatchScrapeBodyInput & { skipped: Record<string, string> };

/** The rates, in credits: a base and each page that succeeded, plus its formats' extras. */
export const BATCH_SCRAPE_PRICES = { base: 1, perPage: prices.syncRequest } as const;

export const BATCH_SCRAPE_PRICE: PriceRow = {
  operation: 'Batch scrape',
  price: `${creditsText(BATCH_SCRAPE_PRICES.base)} + each page as a scrape costs (${creditsText(BATCH_SCRAPE_PRICES.perPage)} and its formats' extras); a page that failed costs nothing`,
};

/** Pages fetched at once per job, and per host within it (UNFURL_CRAWL_CONCURRENCY and _HOST_). */
export interface BatchScrapeDeps {
  registry: JobRegistry;
  documents: Pick<WebDocuments, 'peek' | 'scrape'>;
  items: JobItems;
  concurrency: number;
  perHostConcurrency: number;
  /** Pages one account renders at once (UNFURL_RENDER_ACCOUNT_MAX): a batch needing the browser goes no faster. */
  renderConcurrency: number;
}

/** Finished results kept ahead of the first unfinished one (bounds memory, keeps order). */
const WINDOW = 64;
/** 1,000 pages a few at a time, each with up to 3 minutes: this bounds a stuck batch. */
const BATCH_SCRAPE_TIMEOUT_MS = 60 * 60_000;

export type BatchScrapeItem =
  | { url: string; document: ScrapeDocument }
  | { url: string; error: { error: string; message: string }; errorCode: string };

export interface BatchScrapeResult {
  stats: { total: number; succeeded: number; failed: number; skipped: number };
  /** Credits the succeeded pages cost (1 each, their extras included). */
  pagesCost: number;
  /** Cancelled by its owner: the pages it had are kept. */
  stopped: boolean;
}

/**
 * The job input of a validated body: the options checked (400 naming `scrapeOptions.…`), and each
 * URL that is refused or repeats an earlier page noted by its index. None left to fetch → 400.
 */
export function batchScrapeInput(
  body: BatchScrapeBodyInput,
  checkUrl: (url: string, param: string) => unknown,
): BatchScrapeInput {
  scrapeRequest(body.scrapeOptions ?? {}, 'scrapeOptions.');
  const skipped: Record<string, string> = {};
  const first = new Map<string, number>();
  body.urls.forEach((url, i) => {
    try {
      checkUrl(url, `urls[${i}]`);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      skipped[i] = err.message;
      return;
    }
    const key = normalizeUrl(url) ?? url;
    const earlier = first.get(key);
    if (earlier !== undefined) skipped[i] = `The same page as urls[${earlier}]: scraped once`;
    else first.set(key, i);
  });
  if (first.size === 0) {
    throw invalid('urls', `none can be scraped (${skipped[0] ?? 'no URL'})`);
  }
  return { ...body, skipped };
}

const pagesToFetch = (input: BatchScrapeInput) => input.urls.length - Object.keys(input.skipped).length;

/** The most a batch can cost: its base and each page at its most. */
export function batchScrapeEstimate(input: BatchScrapeInput): number {
  const request = storedScrapeRequest(input.scrapeOptions ?? {});
  return (
    BATCH_SCRAPE_PRICES.base + pagesToFetch(input) * (BATCH_SCRAPE_PRICES.perPage + maxScrapeExtras(request))
  );
}

/** Results per poll answer (the byte budget of a poll answer applies too). */
export const BATCH_SCRAPE_PAGE_SIZE = 100;

export const batchScrapePoll: JobPoll = {
  pageSize: BATCH_SCRAPE_PAGE_SIZE,
  schema: Type.Object({
    status: JobStatusSchema,
    results: Type.Array(Type.Unknown(), {
      description:
        'Per URL, in input order, from `?skip=`: `{url, document}` (as POST /v1/web/scrape answers) or `{url, error, errorCode}`',
    }),
    total: Type.Integer({ description: 'Results so far' }),
    stats: Nullable(
      Type.Object(
        {
          total: Type.Integer(),
          succeeded: Type.Integer(),
          failed: Type.Integer(),
          skipped: Type.Integer({ description: 'Invalid or repeated URLs, reported and not fetched' }),
        },
        { description: 'The counts, once the job ended' },
      ),
    ),
    error: ErrorTextSchema,
    next: NextLinkSchema,
  }),
  view(job, opts) {
    const r = asObj(storedResult(job));
    return {
      status: job.status,
      results: opts.page?.items ?? [],
      total: opts.page?.total ?? 0,
      stats: (r.stats as BatchScrapeResult['stats'] | undefined) ?? null,
      error: errorText(job),
      ...nextLink(opts),
    };
  },
};

function failure(url: string, err: unknown): BatchScrapeItem {
  const error =
    err instanceof AppError
      ? { error: err.code, message: err.message }
      : { error: 'internal_error', message: 'internal error while scraping this page' };
  return { url, error, errorCode: error.error };
}

/** Per-host limits, made as hosts come. */
function hostLimits(perHost: number) {
  const limits = new Map<string, ReturnType<typeof limiter>>();
  return (url: string) => {
    const host = URL.canParse(url) ? new URL(url).host : url;
    const known = limits.get(host);
    if (known) return known;
    const limit = limiter(perHost);
    limits.set(host, limit);
    return limit;
  };
}

export function registerBatchScrape(deps: BatchScrapeDeps): void {
  deps.registry.register<BatchScrapeInput, BatchScrapeResult>({
    kind: BATCH_SCRAPE_KIND,
    poll: batchScrapePoll,
    inputSchema: BatchScrapeBody,
    price: BATCH_SCRAPE_PRICE,
    estimate: batchScrapeEstimate,
    cost: (_input, result) =>
      result.stopped && result.stats.succeeded === 0 ? 0 : BATCH_SCRAPE_PRICES.base + result.pagesCost,
    concurrency: 2,
    timeoutMs: BATCH_SCRAPE_TIMEOUT_MS,
    async run(ctx, input) {
      // A rerun (the worker before this one died) starts over.
      await deps.items.clear(ctx.jobId);
      const request: ScrapeRequest = storedScrapeRequest(input.scrapeOptions ?? {});
      const results = new ItemAppender(deps.items, ctx.jobId);
      const stats = { total: input.urls.length, succeeded: 0, failed: 0, skipped: 0 };
      let pagesCost = 0;
      const hostLimit = hostLimits(deps.perHostConcurrency);
      const scrapeOne = async (url: string): Promise<{ item: BatchScrapeItem; cost: number }> => {
        const cached = await deps.documents.peek(url, request);
        const priced =
          cached ??
          (await deps.documents.scrape(url, request, {
            accountId: ctx.accountId,
            jobId: ctx.jobId,
            signal: ctx.signal,
          }));
        return {
          item: { url, document: priced.document },
          cost: BATCH_SCRAPE_PRICES.perPage + priced.extras,
        };
      };
      try {
        await inOrder(
          input.urls.length,
          needsBrowser(request) ? Math.min(deps.concurrency, deps.renderConcurrency) : deps.concurrency,
          WINDOW,
          async (i) => {
            const url = input.urls[i]!;
            const skip = input.skipped[i];
            if (skip !== undefined)
              return { item: failure(url, new AppError('invalid_request', skip)), cost: 0 };
            ctx.signal.throwIfAborted();
            try {
              return await abortable(
                hostLimit(url)(() => scrapeOne(url)),
                ctx.signal,
              );
            } catch (err) {
              // The job itself is cut short (cancel, time limit, shutdown): not this page's fault.
              if (ctx.signal.aborted) throw ctx.signal.reason ?? err;
              return { item: failure(url, err), cost: 0 };
            }
          },
          async ({ item, cost }, i) => {
            if (input.skipped[i] !== undefined) stats.skipped++;
            else if ('error' in item) stats.failed++;
            else {
              stats.succeeded++;
              pagesCost += cost;
            }
            await results.add(item);
          },
        );
        await results.flush();
        return { stats, pagesCost, stopped: false };
      } catch (err) {
        await results.flush().catch(() => {});
        // Cancelled by its owner: it ends with the pages it has, kept and billed.
        if (ctx.cancelled) return { stats, pagesCost, stopped: true };
        await deps.items.clear(ctx.jobId);
        throw err;
      }
    },
  });
}
