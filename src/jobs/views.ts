// What a job looks like to its owner: the summary of /v1/jobs and the poll answer of each kind.
// Webhooks send the same poll answer, so both are built here.
import type { JobRow } from '../store/schema.js';
import type { ItemsPage } from './items.js';

export function parseResult(job: JobRow): unknown {
  return job.result === null ? null : JSON.parse(job.result);
}

export function jobSummary(job: JobRow) {
  return {
    id: job.id,
    queue: job.kind,
    status: job.status,
    createdAt: job.created_at,
    completedAt: job.completed_at,
    durationMs: job.duration_ms,
    error: job.status === 'failed' ? job.error : null,
    attempts: job.attempts,
    maxAttempts: job.max_attempts,
    credits: job.status === 'completed' || job.status === 'failed' ? (job.cost ?? 0) : job.held,
  };
}

const errorText = (job: JobRow) => (job.status === 'failed' ? job.error : null);

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});

/** `{status, data, error}`: transcript and describe jobs. */
function dataView(job: JobRow) {
  return { status: job.status, data: parseResult(job), error: errorText(job) };
}

/** The OCR shape: `pending` while queued, attempts, segments and their rendering. */
function ocrView(job: JobRow) {
  const r = asObj(parseResult(job));
  return {
    status: job.status === 'queued' ? 'pending' : job.status,
    attempts: job.attempts,
    maxAttempts: job.max_attempts,
    durationMs: job.duration_ms,
    error: errorText(job),
    text: (r.text as unknown) ?? null,
    format: (r.format as string) ?? (asObj(JSON.parse(job.input)).format as string) ?? 'json',
    content: (r.content as string) ?? null,
  };
}

/** The extract shape: `error` is an object. */
function extractView(job: JobRow) {
  const r = asObj(parseResult(job));
  return {
    status: job.status,
    data: (r.data as unknown) ?? null,
    schema: (r.schema as unknown) ?? null,
    error:
      job.status === 'failed'
        ? { error: job.error_code ?? 'internal_error', message: job.error ?? '', details: null }
        : null,
  };
}

/**
 * The batch shape: per-video results (the job's items: a slice from `?skip=`, also while it runs,
 * and `next` while more remain), and the counts once it ended. Without a loaded slice (webhooks)
 * only the counts.
 */
function batchView(job: JobRow, opts: ViewOptions) {
  const r = asObj(parseResult(job));
  const page = opts.page;
  return {
    status: job.status,
    results: page?.items ?? (r.results as unknown[]) ?? [],
    stats: (r.stats as unknown) ?? { total: 0, succeeded: 0, failed: 0 },
    completedAt: job.completed_at,
    error: errorText(job),
    ...(page?.nextSkip != null && opts.nextUrl ? { next: opts.nextUrl(page.nextSkip) } : {}),
  };
}

/** Results per batch poll answer: a whole batch of video metadata fits in one (under the byte budget). */
export const BATCH_PAGE_SIZE = 1000;

/** Pages per crawl poll answer, and the JSON budget that keeps one answer under 10 MB. */
export const CRAWL_PAGE_SIZE = 100;
export const CRAWL_ANSWER_BYTES = 8 * 1024 * 1024;

export interface ViewOptions {
  skip?: number;
  nextUrl?: (skip: number) => string;
  /** The slice of the job's items to show (paged routes load it). */
  page?: ItemsPage;
}

/**
 * The crawl shape: a slice of the pages scraped so far (also while it runs), `next` while more
 * remain, and the pages that failed. Without a loaded slice (webhooks) only the counts.
 */
function crawlView(job: JobRow, opts: ViewOptions) {
  const r = asObj(parseResult(job));
  const page = opts.page;
  return {
    status: job.status,
    pages: page?.items ?? [],
    total: page?.total ?? (r.pagesScraped as number) ?? 0,
    failures: (r.failures as unknown[]) ?? [],
    error: errorText(job),
    ...(page?.nextSkip != null && opts.nextUrl ? { next: opts.nextUrl(page.nextSkip) } : {}),
  };
}

export interface PollRoute {
  /** Path under which jobs of these kinds are polled, with `:jobId`. */
  path: string;
  kinds: readonly string[];
  summary: string;
  /** Also answered here (hidden from OpenAPI), e.g. the /v1/youtube/* twin. */
  aliases?: readonly string[];
  /** Its answer shows a slice of the job's items, from `?skip=`. */
  paged?: boolean;
  /** Most items in one answer when paged (default CRAWL_PAGE_SIZE; the byte budget applies too). */
  pageSize?: number;
  view(job: JobRow, opts: ViewOptions): Record<string, unknown>;
}

/** Poll routes, one per family of kinds (DESIGN §4). A job of another kind is a 404 there. */
export const pollRoutes: readonly PollRoute[] = [
  { path: '/v1/transcript/:jobId', kinds: ['transcript'], summary: 'Poll a transcript job', view: dataView },
  { path: '/v1/video/ocr/:jobId', kinds: ['ocr'], summary: 'Poll an OCR job', view: ocrView },
  { path: '/v1/video/describe/:jobId', kinds: ['describe'], summary: 'Poll a describe job', view: dataView },
  { path: '/v1/extract/:jobId', kinds: ['extract'], summary: 'Poll an extract job', view: extractView },
  {
    path: '/v1/web/crawl/:jobId',
    kinds: ['crawl'],
    summary: 'Poll a crawl job: pages from ?skip=N, and `next` while more remain',
    paged: true,
    view: crawlView,
  },
  {
    path: '/v1/vidsite/batch/:jobId',
    aliases: ['/v1/youtube/batch/:jobId'],
    kinds: ['transcript_batch', 'video_batch'],
    summary: 'Poll a transcript or video batch job: results from ?skip=N, and `next` while more remain',
    paged: true,
    pageSize: BATCH_PAGE_SIZE,
    view: batchView,
  },
];

/** The poll answer of any job: that of its kind's route, or `{status, data, error}`. */
export function pollAnswer(job: JobRow, opts: ViewOptions = {}) {
  const route = pollRoutes.find((r) => r.kinds.includes(job.kind));
  return (route ? route.view(job, opts) : dataView(job)) as Record<string, unknown>;
}
