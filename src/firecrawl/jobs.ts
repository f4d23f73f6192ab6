// Firecrawl's jobs (crawl, batch scrape) as ours: submitted through the job service (its hold, its
// limits, its webhooks), read back in Firecrawl's status shape — `scraping` until the end, `completed`
// and `total` counts, `creditsUsed`, `expiresAt`, a page of documents and `next` while more remain.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpContext } from '../http/context.js';
import { principal } from '../http/plugins/auth.js';
import { jobCreditHeaders } from '../http/plugins/billing.js';
import type { JobRow } from '../jobs/types.js';
import { POLL_ANSWER_BYTES, storedResult } from '../jobs/views.js';
import { crawlStatus } from '../sources/web/crawl-poll.js';
import type { ScrapeDocument } from '../sources/web/documents.js';
import { toFirecrawlDocument } from './document.js';
import { mergeExtracts } from './extract.js';

export type FirecrawlJobDeps = Pick<HttpContext, 'jobs' | 'fetcher' | 'charges' | 'config'>;

/** Documents per status answer (Firecrawl pages its own by size; `next` names the rest). */
const PAGE_SIZE = 100;

/** A webhook as Firecrawl takes it: a URL, or an object with one (its other fields are not used). */
export function webhookUrlOf(webhook: unknown): string | undefined {
  if (typeof webhook === 'string') return webhook;
  if (webhook && typeof webhook === 'object' && typeof (webhook as { url?: unknown }).url === 'string') {
    return (webhook as { url: string }).url;
  }
  return undefined;
}

/** Submits a job for the caller, as our job routes do, and sets the credit headers they set. */
export async function submitJob(
  deps: FirecrawlJobDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  kind: string,
  input: unknown,
  webhook: unknown,
): Promise<string> {
  const { accountId } = principal(request);
  const webhookUrl = webhookUrlOf(webhook);
  if (webhookUrl !== undefined) await deps.fetcher.checkResolvedUrl(webhookUrl, 'webhook');
  const accepted = await deps.jobs.service.submit({ accountId, kind, input, webhookUrl: webhookUrl ?? null });
  jobCreditHeaders(reply, await deps.charges.ofJob(accountId, accepted));
  return accepted.jobId;
}

/** A stored item as the document it holds (a batch's failures hold none). */
function documentOf(item: unknown): ScrapeDocument | null {
  const it = item as { document?: ScrapeDocument; metadata?: unknown } | null;
  if (it?.document) return it.document;
  return it && typeof it === 'object' && 'metadata' in it ? (it as ScrapeDocument) : null;
}

/**
 * A job's status in Firecrawl's shape, with the documents from `skip`; `path` is where it is polled
 * (`next` points there).
 */
export async function jobStatus(
  deps: FirecrawlJobDeps,
  request: FastifyRequest,
  kinds: readonly string[],
  jobId: string,
  skip: number,
  path: string,
): Promise<{ success: true; [key: string]: unknown }> {
  const job = await deps.jobs.service.getReadable(principal(request).accountId, jobId, kinds);
  const page = await deps.jobs.items.page(job.id, skip, PAGE_SIZE, POLL_ANSWER_BYTES);
  const documents = page.items.map(documentOf).filter((d): d is ScrapeDocument => d !== null);
  // A batch has a result per URL it was given; a crawl, a page per page scraped (its failures apart).
  const urls = (JSON.parse(job.input) as { urls?: unknown[] }).urls;
  const total = Array.isArray(urls) ? urls.length : page.total + failuresOf(job, []).length;
  return {
    success: true,
    status: crawlStatus(job),
    completed: page.total,
    total,
    ...(job.cost !== null && { creditsUsed: job.cost }),
    ...(job.result_expires_at !== null && { expiresAt: new Date(job.result_expires_at).toISOString() }),
    // v1's SDK follows `next` for as long as the key is there: it is left out at the end.
    ...(page.nextSkip !== null
      ? { next: `${deps.config.publicUrl}${path}?skip=${page.nextSkip}` }
      : !path.startsWith('/v1/') && { next: null }),
    data: documents.map((d) => toFirecrawlDocument(d)),
  };
}

interface Failure {
  url: string;
  code: string;
  error: string;
}

/** A job's pages that failed: a crawl's from its result, a batch's from its items. */
function failuresOf(job: JobRow, items: unknown[]): Failure[] {
  const out: Failure[] = [];
  for (const item of items) {
    const it = item as { url?: string; error?: { error: string; message: string } };
    if (it?.error && typeof it.url === 'string') {
      out.push({ url: it.url, code: it.error.error, error: it.error.message });
    }
  }
  const result = storedResult(job) as { failures?: unknown } | null;
  for (const f of Array.isArray(result?.failures) ? result.failures : []) {
    const failure = f as { url?: string; error?: string; message?: string };
    if (typeof failure.url === 'string') {
      out.push({ url: failure.url, code: failure.error ?? 'upstream_error', error: failure.message ?? '' });
    }
  }
  return out;
}

/** Every item of a job, read in pages (a batch has at most 1,000). */
async function allItems(deps: FirecrawlJobDeps, job: JobRow): Promise<unknown[]> {
  const items: unknown[] = [];
  for (let skip: number | null = 0; skip !== null; ) {
    const page = await deps.jobs.items.page(job.id, skip, 1000, POLL_ANSWER_BYTES);
    items.push(...page.items);
    skip = page.nextSkip;
  }
  return items;
}

/** GET …/errors: the pages that failed (all of them, read in pages). */
export async function jobErrors(
  deps: FirecrawlJobDeps,
  request: FastifyRequest,
  kinds: readonly string[],
  jobId: string,
  itemsHoldFailures: boolean,
): Promise<{ success: true; [key: string]: unknown }> {
  const job = await deps.jobs.service.getReadable(principal(request).accountId, jobId, kinds);
  // A batch's failures are among its items (a crawl's are in its result).
  const items = itemsHoldFailures
    ? (await allItems(deps, job)).filter((item) => (item as { error?: unknown })?.error)
    : [];
  const timestamp = new Date(job.completed_at ?? job.created_at).toISOString();
  const errors = failuresOf(job, items).map((f, i) => ({ id: `${job.id}-${i}`, timestamp, ...f }));
  return { success: true, errors, robotsBlocked: [] };
}

/** DELETE: our cancel, answered as Firecrawl answers it. */
export async function cancelJob(
  deps: FirecrawlJobDeps,
  request: FastifyRequest,
  kinds: readonly string[],
  jobId: string,
): Promise<{ success: true; [key: string]: unknown }> {
  const { accountId } = principal(request);
  await deps.jobs.service.getReadable(accountId, jobId, kinds); // another kind's job is a 404 here
  await deps.jobs.service.cancel(accountId, jobId);
  return { success: true, status: 'cancelled' };
}

/** GET /v2/extract/:id: `processing` until the pages are read, then one answer made of theirs. */
export async function extractStatus(
  deps: FirecrawlJobDeps,
  request: FastifyRequest,
  kinds: readonly string[],
  jobId: string,
): Promise<{ success: true; [key: string]: unknown }> {
  const job = await deps.jobs.service.getReadable(principal(request).accountId, jobId, kinds);
  const expiresAt =
    job.result_expires_at !== null ? new Date(job.result_expires_at).toISOString() : undefined;
  if (job.status === 'queued' || job.status === 'active') {
    return { success: true, status: 'processing', data: null, ...(expiresAt && { expiresAt }) };
  }
  const items = await allItems(deps, job);
  const answers = items.map((item) => documentOf(item)?.json).filter((json) => json !== undefined);
  const failures = failuresOf(job, items);
  // Nothing read at all: the extract failed, saying why the first page did.
  const failed = job.status === 'completed' && answers.length === 0;
  return {
    success: true,
    status: failed ? 'failed' : job.status,
    data: mergeExtracts(answers),
    ...(failed && { error: failures[0]?.error ?? 'No page could be read' }),
    ...(job.cost !== null && { creditsUsed: job.cost }),
    ...(expiresAt && { expiresAt }),
  };
}
