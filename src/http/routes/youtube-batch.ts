// Batch jobs of YouTube: transcripts or metadata of many videos at once,
// polled at GET /v1/vidsite/batch/{jobId}. /v1/youtube/* are aliases.

import {
  TranscriptBatchBody,
  transcriptBatchInput,
  VideoBatchBody,
  videoBatchInput,
} from '../../sources/youtube/batch-input.js';
import { TRANSCRIPT_BATCH_KIND, VIDEO_BATCH_KIND } from '../../sources/youtube/batch-job.js';
import { batchPoll } from '../../sources/youtube/batch-poll.js';
import type { HttpContext } from '../context.js';
import { jobRoute, pollRoute } from '../job-route.js';
import type { RoutePlugin } from '../typed.js';

const SOURCE_RULES =
  'Exactly one of `videoIds` (1–500 ids or URLs), `playlistId` or `channelId` (their first `limit` videos, ' +
  'default 10, at most 1000). Holds 1 + videos (or 1 + `limit`) credits and costs 1 + the videos that ' +
  'succeeded; each result is `{videoId, …}` with the data or an `error`, in input order.';

type YouTubeBatchDeps = Pick<HttpContext, 'jobs' | 'fetcher' | 'charges' | 'config'>;

export const youtubeBatchRoutes: RoutePlugin<YouTubeBatchDeps> = async (app, deps) => {
  jobRoute(app, deps, {
    path: '/v1/vidsite/transcript/batch',
    aliases: ['/v1/youtube/transcript/batch'],
    kind: TRANSCRIPT_BATCH_KIND,
    tags: ['Videos'],
    operationId: 'transcriptBatch',
    summary: 'Transcripts of many videos (a job): poll GET /v1/vidsite/batch/{jobId}',
    description: `${SOURCE_RULES} Native captions only (a video without them fails with \`transcript_unavailable\`).`,
    body: TranscriptBatchBody,
    toInput: ({ webhookUrl: _, ...body }) => transcriptBatchInput(body),
  });

  jobRoute(app, deps, {
    path: '/v1/vidsite/video/batch',
    aliases: ['/v1/youtube/video/batch'],
    kind: VIDEO_BATCH_KIND,
    tags: ['Videos'],
    operationId: 'videoBatch',
    summary: 'Metadata of many videos (a job): poll GET /v1/vidsite/batch/{jobId}',
    description: SOURCE_RULES,
    body: VideoBatchBody,
    toInput: ({ webhookUrl: _, ...body }) => videoBatchInput(body),
  });

  pollRoute(app, deps, {
    path: '/v1/vidsite/batch/:jobId',
    aliases: ['/v1/youtube/batch/:jobId'],
    kinds: [TRANSCRIPT_BATCH_KIND, VIDEO_BATCH_KIND],
    poll: batchPoll,
    operationId: 'batchPoll',
    summary: 'Poll a transcript or video batch job: results from ?skip=N, and `next` while more remain',
  });
};
