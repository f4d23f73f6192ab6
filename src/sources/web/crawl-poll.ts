// How a crawl job looks to its owner: its poll answer (GET /v1/web/crawl/{jobId}, and its webhooks'
// data) and its result as GET /v1/jobs/{jobId} shows it.
import { Type } from '@sinclair/typebox';
import type { JobPoll, JobRow } from '../../jobs/types.js';
import {
  asObj,
  ErrorTextSchema,
  errorText,
  NextLinkSchema,
  nextLink,
  storedResult,
} from '../../jobs/views.js';
import { Nullable, StringEnum } from '../../schemas.js';

/** Pages per crawl poll answer (the byte budget of a poll answer applies too). */
export const CRAWL_PAGE_SIZE = 100;

/**
 * The crawler records a cancel as `stopped` (its cost rule reads that); its owner reads who stopped
 * it, beside `limit` and `deadline`: a `cancel`.
 */
function ownerResult(stored: unknown): unknown {
  const result = stored as { stoppedBy?: unknown } | null;
  if (result?.stoppedBy === 'stopped') result.stoppedBy = 'cancel';
  return result;
}

/** `scraping` until a crawl ends, as the hosted APIs (and their SDKs) name its running states. */
export const crawlStatus = (job: JobRow) =>
  job.status === 'queued' || job.status === 'active' ? 'scraping' : job.status;

/**
 * The crawl shape: a slice of the pages scraped so far (also while it runs), `next` while more
 * remain, and the pages that failed. Without a loaded slice (webhooks) only the counts.
 */
export const crawlPoll: JobPoll = {
  pageSize: CRAWL_PAGE_SIZE,
  schema: Type.Object({
    status: StringEnum(['scraping', 'completed', 'failed', 'cancelled'] as const, {
      description: '`scraping` until the crawl ends',
    }),
    pages: Type.Array(Type.Unknown(), {
      description: 'Pages scraped, from `?skip=` (each as GET /v1/web/scrape answers it)',
    }),
    total: Type.Integer({ description: 'Pages scraped so far' }),
    failures: Type.Array(Type.Unknown(), {
      description: 'The first pages that failed: `{url, error, message, status}`',
    }),
    stoppedReason: Nullable(
      Type.String({
        description:
          'Why it ended with links left: `limit`, `credits`, `deadline` or `cancel`; null while it runs and when it ran out of links',
      }),
    ),
    error: ErrorTextSchema,
    next: NextLinkSchema,
  }),
  result: ownerResult,
  view(job, opts) {
    const r = asObj(ownerResult(storedResult(job)));
    const page = opts.page;
    return {
      status: crawlStatus(job),
      pages: page?.items ?? [],
      total: page?.total ?? (r.pagesScraped as number) ?? 0,
      failures: (r.failures as unknown[]) ?? [],
      // Why it ended with links left (`limit`, `credits`, `deadline`, `cancel`); null while it runs
      // and when it ran out of links.
      stoppedReason: (r.stoppedBy as string | undefined) ?? null,
      error: errorText(job),
      ...nextLink(opts),
    };
  },
};
