// What a job looks like to its owner: the summary of /v1/jobs and the poll answer of each kind.
// Webhooks send the same poll answer as the kind's poll route (which its route file registers).
import type { JobRow } from '../store/schema.js';
import type { ItemsPage } from './items.js';
import type { JobSummaryRow } from './records/reads.js';

export function parseResult(job: JobRow): unknown {
  const result = job.result === null ? null : JSON.parse(job.result);
  // The crawler records a cancel as `stopped` (its cost rule reads that); its owner reads who
  // stopped it, beside `limit` and `deadline`: a `cancel`.
  if (job.kind === 'crawl' && result?.stoppedBy === 'stopped') result.stoppedBy = 'cancel';
  return result;
}

/** The URL a job was started on, where its input has one (batches of ids have none). */
function inputUrl(job: JobSummaryRow | JobRow): string | null {
  if ('input_url' in job) return typeof job.input_url === 'string' ? job.input_url : null;
  try {
    const url = (JSON.parse(job.input) as { url?: unknown }).url;
    return typeof url === 'string' ? url : null;
  } catch {
    return null;
  }
}

/** A listing's row (its URL read by the database) or a whole job row. */
export function jobSummary(job: JobSummaryRow | JobRow) {
  return {
    id: job.id,
    queue: job.kind,
    url: inputUrl(job),
    status: job.status,
    createdAt: job.created_at,
    completedAt: job.completed_at,
    durationMs: job.duration_ms,
    error: job.status === 'failed' ? job.error : null,
    attempts: job.attempts,
    maxAttempts: job.max_attempts,
    credits: job.status === 'queued' || job.status === 'active' ? job.held : (job.cost ?? 0),
  };
}

const errorText = (job: JobRow) => (job.status === 'failed' ? job.error : null);

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});

/** `{status, data, error}`: transcript and describe jobs. */
function dataView(job: JobRow) {
  return { status: job.status, data: parseResult(job), error: errorText(job) };
}

/** A transcript job: `{status, data, error}`, and `result` (the same as `data`) where the hosted API's SDKs read it. */
function transcriptView(job: JobRow) {
  const { status, data, error } = dataView(job);
  return { status, data, error, result: data };
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
    // `scraping` until it ends, as the hosted API (and its SDKs) name a crawl's running states.
    status: job.status === 'queued' || job.status === 'active' ? 'scraping' : job.status,
    pages: page?.items ?? [],
    total: page?.total ?? (r.pagesScraped as number) ?? 0,
    failures: (r.failures as unknown[]) ?? [],
    // Why it ended with links left (`limit`, `credits`, `deadline`, `cancel`); null while it runs
    // and when it ran out of links.
    stoppedReason: (r.stoppedBy as string | undefined) ?? null,
    error: errorText(job),
    ...(page?.nextSkip != null && opts.nextUrl ? { next: opts.nextUrl(page.nextSkip) } : {}),
  };
}

/** Each kind's poll shape; a kind not named here answers `{status, data, error}`. */
const VIEWS: Readonly<Record<string, (job: JobRow, opts: ViewOptions) => Record<string, unknown>>> = {
  transcript: transcriptView,
  describe: dataView,
  ocr: ocrView,
  extract: extractView,
  crawl: crawlView,
  transcript_batch: batchView,
  video_batch: batchView,
};

/** The poll answer of any job: the shape of its kind (its poll route and its webhooks send it). */
export function pollAnswer(job: JobRow, opts: ViewOptions = {}) {
  return (VIEWS[job.kind] ?? dataView)(job, opts) as Record<string, unknown>;
}
