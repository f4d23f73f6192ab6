// What a job looks like to its owner: the summary of /v1/jobs and the poll answer of each kind.
// Webhooks send the same poll answer, so both are built here.
import type { JobRow } from '../store/schema.js';

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

/** The batch shape: per-video results and counts. */
function batchView(job: JobRow) {
  const r = asObj(parseResult(job));
  return {
    status: job.status,
    results: (r.results as unknown[]) ?? [],
    stats: (r.stats as unknown) ?? { total: 0, succeeded: 0, failed: 0 },
    completedAt: job.completed_at,
    error: errorText(job),
  };
}

export const CRAWL_PAGE_SIZE = 50;

/** The crawl shape: pages from `skip`, and `next` while more remain. */
function crawlView(job: JobRow, opts: { skip?: number; nextUrl?: (skip: number) => string }) {
  const pages = (asObj(parseResult(job)).pages as unknown[]) ?? [];
  const skip = opts.skip ?? 0;
  const slice = pages.slice(skip, skip + CRAWL_PAGE_SIZE);
  const more = skip + CRAWL_PAGE_SIZE < pages.length;
  return {
    status: job.status,
    pages: slice,
    total: pages.length,
    error: errorText(job),
    ...(more && opts.nextUrl ? { next: opts.nextUrl(skip + CRAWL_PAGE_SIZE) } : {}),
  };
}

export interface PollRoute {
  /** Path under which jobs of these kinds are polled, with `:jobId`. */
  path: string;
  kinds: readonly string[];
  summary: string;
  view(job: JobRow, opts: { skip?: number; nextUrl?: (skip: number) => string }): Record<string, unknown>;
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
    summary: 'Poll a crawl job (paged with skip)',
    view: crawlView,
  },
  {
    path: '/v1/vidsite/batch/:jobId',
    kinds: ['transcript_batch', 'video_batch'],
    summary: 'Poll a transcript or video batch job',
    view: batchView,
  },
];

/** The poll answer of any job: that of its kind's route, or `{status, data, error}`. */
export function pollAnswer(job: JobRow, opts: { skip?: number; nextUrl?: (skip: number) => string } = {}) {
  const route = pollRoutes.find((r) => r.kinds.includes(job.kind));
  return (route ? route.view(job, opts) : dataView(job)) as Record<string, unknown>;
}
