// How a batch job (transcript_batch, video_batch) looks to its owner: its poll answer
// (GET /v1/vidsite/batch/{jobId}, and its webhooks' data).
import { Type } from '@sinclair/typebox';
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

/** Results per batch poll answer: a whole batch of video metadata fits in one (under the byte budget). */
export const BATCH_PAGE_SIZE = 1000;

/**
 * The batch shape: per-video results (the job's items: a slice from `?skip=`, also while it runs,
 * and `next` while more remain), and the counts once it ended. Without a loaded slice (webhooks)
 * only the counts.
 */
export const batchPoll: JobPoll = {
  pageSize: BATCH_PAGE_SIZE,
  schema: Type.Object({
    status: JobStatusSchema,
    results: Type.Array(Type.Unknown(), {
      description:
        'Per video, in input order, from `?skip=`: `{videoId, transcript}` or `{videoId, video}`, or `{videoId, error, errorCode}`',
    }),
    stats: Type.Object(
      { total: Type.Integer(), succeeded: Type.Integer(), failed: Type.Integer() },
      { description: 'The counts, once the job ended' },
    ),
    completedAt: Nullable(Type.Integer()),
    error: ErrorTextSchema,
    next: NextLinkSchema,
  }),
  view(job, opts) {
    const r = asObj(storedResult(job));
    return {
      status: job.status,
      results: opts.page?.items ?? (r.results as unknown[]) ?? [],
      stats: r.stats ?? { total: 0, succeeded: 0, failed: 0 },
      completedAt: job.completed_at,
      error: errorText(job),
      ...nextLink(opts),
    };
  },
};
