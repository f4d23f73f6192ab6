// What a job looks like to its owner: the summary of /v1/jobs, and the poll answer of each kind —
// the view its kind declares (`JobKind.poll`, beside the kind), else `{status, data, error}`. Webhooks
// send the same poll answer as the kind's poll route (which its route file registers). Here only the
// generic pieces; no kind is known by name.
import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../schemas.js';
import type { JobRow, JobStatus } from '../store/schema.js';
import type { JobSummaryRow } from './records/reads.js';
import type { JobKind, JobPoll, ViewOptions } from './types.js';

export type { ViewOptions } from './types.js';

/** The kinds a process knows (its registry), by name. */
export interface KnownKinds {
  get(kind: string): JobKind | undefined;
}

/** The job's result as stored (JSON), or null while it has none. */
export function storedResult(job: JobRow): unknown {
  return job.result === null ? null : JSON.parse(job.result);
}

/** The job's result as its owner reads it (GET /v1/jobs/{jobId}): its kind's reading of the stored one. */
export function resultOf(kinds: KnownKinds, job: JobRow): unknown {
  const poll = kinds.get(job.kind)?.poll;
  const stored = storedResult(job);
  return poll?.result ? poll.result(stored) : stored;
}

/** The poll answer of any job: the shape of its kind (its poll route and its webhooks send it). */
export function pollAnswer(kinds: KnownKinds, job: JobRow, opts: ViewOptions = {}): Record<string, unknown> {
  const poll = kinds.get(job.kind)?.poll;
  return poll ? poll.view(job, opts) : dataView(job);
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

/** A failed job's error message; null otherwise. */
export const errorText = (job: JobRow) => (job.status === 'failed' ? job.error : null);

type Obj = Record<string, unknown>;
/** `v` when it is an object, else an empty one: the fields views read of a stored result. */
export const asObj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});

/** `next` (the URL of the following slice) while a paged answer has more items, else nothing. */
export function nextLink(opts: ViewOptions): { next?: string } {
  const skip = opts.page?.nextSkip;
  return skip != null && opts.nextUrl ? { next: opts.nextUrl(skip) } : {};
}

const JOB_STATES = [
  'queued',
  'active',
  'completed',
  'failed',
  'cancelled',
] as const satisfies readonly JobStatus[];

/** A job's status as its poll answers show it. */
export const JobStatusSchema = StringEnum(JOB_STATES);

/** The `error` of a poll answer: a failed job's message, else null. */
export const ErrorTextSchema = Nullable(
  Type.String({ description: "A failed job's message; null otherwise" }),
);

/** `next` of a paged poll answer. */
export const NextLinkSchema = Type.Optional(
  Type.String({ description: 'The URL of the next slice (`?skip=N`), while more remain' }),
);

/** The default poll answer `{status, data, error}`: `data` is the job's result (null until it has one). */
export function dataView(job: JobRow) {
  return { status: job.status, data: storedResult(job), error: errorText(job) };
}

export const DataViewSchema = Type.Object({
  status: JobStatusSchema,
  data: Type.Unknown({ description: "The job's result; null until it has one" }),
  error: ErrorTextSchema,
});

/** The poll of a kind whose answer is `{status, data, error}` (kinds without a `poll` answer the same). */
export const dataPoll: JobPoll = { schema: DataViewSchema, view: dataView };

/** The JSON budget that keeps one paged poll answer under 10 MB. */
export const POLL_ANSWER_BYTES = 8 * 1024 * 1024;
