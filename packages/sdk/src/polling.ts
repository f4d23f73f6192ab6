// Waiting for jobs and walking paged answers: waitForJob polls the route of the job's kind until it
// ends; crawlPages follows a crawl's `next`/`skip` while it runs; listJobs walks /v1/jobs by offset;
// cursorItems walks any list answered as `{…, next}` pages (monitors, their events).
import { UnfurlError } from './errors.js';
import { fillPath, pagedKinds, pollRouteOfKind, type RouteName } from './routes.js';
import { sleep, type Transport } from './transport.js';
import type {
  CrawlPoll,
  Job,
  JobKind,
  JobSummary,
  JobsPage,
  JobsQuery,
  PollAnswers,
  ScrapedPage,
} from './types.js';

export interface WaitOptions<K extends JobKind = JobKind> {
  /** The job's kind (its `queue`); when left out, one GET /v1/jobs/{jobId} finds it. */
  kind?: K;
  /** Give up after this long (default 10 minutes), with UnfurlError `job_timeout`. */
  timeoutMs?: number;
  /** Pause between polls (default 1000 ms). */
  intervalMs?: number;
  /** Stops waiting at once; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Resolve with a failed or cancelled job's answer instead of rejecting with UnfurlError
   * `job_failed` or `job_cancelled`.
   */
  resolveFailed?: boolean;
  /** Called with every poll answer (progress displays). */
  onPoll?: (answer: PollAnswers[K] | Job) => void;
}

const ENDED = new Set(['completed', 'failed', 'cancelled']);

function jobError(answer: Record<string, unknown>): { message: string; code: string | null } {
  const e = answer.error;
  if (e && typeof e === 'object') {
    const o = e as { error?: string; message?: string };
    return { message: o.message ?? o.error ?? 'job failed', code: o.error ?? null };
  }
  return { message: typeof e === 'string' && e ? e : 'job failed', code: null };
}

/** The `skip` of a `next` URL (the URL itself names the server's public address, not ours). */
export function skipOf(next: string): number | null {
  try {
    const v = new URL(next, 'http://placeholder').searchParams.get('skip');
    return v !== null && /^\d+$/.test(v) ? Number(v) : null;
  } catch {
    return null;
  }
}

export async function getJob(transport: Transport, jobId: string, signal?: AbortSignal): Promise<Job> {
  return (await transport.request<Job>({ method: 'GET', path: fillPath('getJob', { jobId }), signal })).body;
}

export async function waitForJob<K extends JobKind>(
  transport: Transport,
  jobId: string,
  options: WaitOptions<K> = {},
): Promise<PollAnswers[K]> {
  const { signal, intervalMs = 1000, timeoutMs = 600_000 } = options;
  const deadline = Date.now() + timeoutMs;
  let kind: string | undefined = options.kind;
  let known: Job | undefined;
  if (!kind) {
    known = await getJob(transport, jobId, signal);
    kind = known.queue;
  }
  const pollRoute: RouteName = (pollRouteOfKind as Record<string, RouteName>)[kind] ?? 'getJob';
  // Paged answers carry up to 100 pages each: while the job runs, the job summary is the cheap check.
  const watchRoute: RouteName = pagedKinds.has(kind) ? 'getJob' : pollRoute;
  // The summary just read is the first watch answer only where the job summary is what is watched.
  let answer =
    watchRoute === 'getJob' ? (known as unknown as Record<string, unknown> | undefined) : undefined;
  for (;;) {
    if (!answer) {
      answer = (
        await transport.request<Record<string, unknown>>({
          method: 'GET',
          path: fillPath(watchRoute, { jobId }),
          signal,
        })
      ).body;
    }
    options.onPoll?.(answer as unknown as PollAnswers[K]);
    if (ENDED.has(String(answer.status))) break;
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new UnfurlError({
        code: 'job_timeout',
        status: 0,
        message: `Job ${jobId} did not end within ${timeoutMs} ms (last status: ${String(answer.status)})`,
        job: answer,
      });
    }
    await sleep(Math.min(intervalMs, left), signal);
    answer = undefined;
  }
  if (watchRoute !== pollRoute) {
    answer = (
      await transport.request<Record<string, unknown>>({
        method: 'GET',
        path: fillPath(pollRoute, { jobId }),
        signal,
      })
    ).body;
  }
  if (answer.status === 'cancelled' && !options.resolveFailed) {
    throw new UnfurlError({
      code: 'job_cancelled',
      status: 0,
      message: `Job ${jobId} was cancelled`,
      job: answer,
    });
  }
  if (answer.status === 'failed' && !options.resolveFailed) {
    const { message, code } = jobError(answer);
    throw new UnfurlError({
      code: 'job_failed',
      status: 0,
      message: `Job ${jobId} failed: ${message}`,
      details: code,
      job: answer,
    });
  }
  return answer as unknown as PollAnswers[K];
}

export interface CrawlPagesOptions {
  /** Start at this page index (default 0). */
  skip?: number;
  /** Pause before asking again while the crawl runs and no new page is there (default 1000 ms). */
  intervalMs?: number;
  signal?: AbortSignal;
  /** Called with every poll answer (its `total` and `status` drive progress displays). */
  onPoll?: (answer: CrawlPoll) => void;
}

/**
 * Every page of a crawl, in order, as the crawl produces them: follows `next` while more are there,
 * waits while the job still runs, and ends once it has ended and every page was yielded. A failed
 * crawl throws UnfurlError `job_failed` after the pages it did scrape; a cancelled one ends after
 * the pages it kept (its last answer, given to `onPoll`, says `cancelled`).
 */
export async function* crawlPages(
  transport: Transport,
  jobId: string,
  options: CrawlPagesOptions = {},
): AsyncGenerator<ScrapedPage, void, undefined> {
  const { signal, intervalMs = 1000 } = options;
  let skip = options.skip ?? 0;
  for (;;) {
    const { body } = await transport.request<CrawlPoll>({
      method: 'GET',
      path: fillPath('crawlPoll', { jobId }),
      query: { skip },
      signal,
    });
    options.onPoll?.(body);
    for (const page of body.pages) yield page;
    const asked = skip;
    skip += body.pages.length;
    const nextSkip = body.next ? skipOf(body.next) : null;
    // More are there already: ask at once (only when it moves forward, so a bad `next` cannot loop).
    if (nextSkip !== null && nextSkip > asked) {
      skip = nextSkip;
      continue;
    }
    if (ENDED.has(body.status)) {
      if (body.status === 'failed') {
        throw new UnfurlError({
          code: 'job_failed',
          status: 0,
          message: `Crawl ${jobId} failed: ${body.error ?? 'unknown error'}`,
          job: body,
        });
      }
      return;
    }
    await sleep(intervalMs, signal);
  }
}

export interface ListJobsOptions extends Omit<JobsQuery, 'limit'> {
  /** Jobs per request (1–100, default 100). */
  pageSize?: number;
  signal?: AbortSignal;
}

/**
 * Every job of the caller, newest first, one /v1/jobs page at a time: the first page at `offset`, each
 * next one after the previous page's `next` cursor (new jobs do not shift it, and a deep page costs
 * the server no more than the first).
 */
export async function* listJobs(
  transport: Transport,
  options: ListJobsOptions = {},
): AsyncGenerator<JobSummary, void, undefined> {
  const { pageSize = 100, status, signal } = options;
  let query: JobsQuery = { status, limit: pageSize, offset: options.offset ?? 0 };
  for (;;) {
    const { body } = await transport.request<JobsPage>({
      method: 'GET',
      path: fillPath('listJobs'),
      query: { ...query },
      signal,
    });
    yield* body.jobs;
    if (!body.next || body.jobs.length === 0) return;
    query = { status, limit: pageSize, cursor: body.next };
  }
}

export interface CursorListOptions {
  /** Items per request (1–100, default 100). */
  pageSize?: number;
  /** Start after this `next` of an earlier page. */
  cursor?: string;
  signal?: AbortSignal;
}

/**
 * Every item of a list paged by cursor, one page at a time: each page after the previous page's
 * `next`, until a page has none (or is empty, so a server that keeps answering `next` cannot loop).
 */
export async function* cursorItems<P extends { next: string | null }, T>(
  page: (query: { limit: number; cursor?: string }, signal?: AbortSignal) => Promise<P>,
  items: (page: P) => T[],
  options: CursorListOptions = {},
): AsyncGenerator<T, void, undefined> {
  const { pageSize = 100, signal } = options;
  let cursor = options.cursor;
  for (;;) {
    const body = await page({ limit: pageSize, ...(cursor && { cursor }) }, signal);
    const got = items(body);
    yield* got;
    if (!body.next || got.length === 0) return;
    cursor = body.next;
  }
}
