// The two batch job kinds of YouTube: transcript_batch and video_batch. A job
// resolves its videos (the ids it was given, or a playlist's or channel's first `limit`), fetches
// them a few at a time so the platform is not hammered, and stores one result per video, in input
// order, as job items (a poll pages through them). It holds 1 + videos (or 1 + limit) and costs
// 1 + the videos that succeeded: a video that failed costs nothing.

import { abortable } from '../../abortable.js';
import { creditsText, type PriceRow } from '../../billing/prices.js';
import { AppError, retryable } from '../../errors.js';
import { inOrder } from '../../jobs/in-order.js';
import type { JobItems } from '../../jobs/items.js';
import type { JobRegistry } from '../../jobs/registry.js';
import type { JobContext, JobKind } from '../../jobs/types.js';
import { type NativeTranscript, shapeTranscript, type Transcript } from '../transcript.js';
import {
  type BatchSource,
  batchSize,
  TranscriptBatchBody,
  type TranscriptBatchInput,
  VideoBatchBody,
  type VideoBatchInput,
} from './batch-input.js';
import { batchPoll } from './batch-poll.js';
import type { ChannelVideosOptions } from './channel-videos.js';
import type { VideoIdLists } from './id-lists.js';
import type { PlaylistVideosOptions } from './playlist.fetch.js';
import type { TranscriptRequest } from './transcripts.js';
import type { VideoMetadata } from './video.js';

/** The kinds' names: their queues, and the `kind` their routes submit. */
export const TRANSCRIPT_BATCH_KIND = 'transcript_batch';
export const VIDEO_BATCH_KIND = 'video_batch';

/** The batch kinds' rates, in credits: a base and each video that succeeded. */
export const BATCH_PRICES = { base: 1, perVideo: 1 } as const;

/** The row of the price table both kinds share. */
export const BATCH_PRICE: PriceRow = {
  operation: 'Batch (transcripts or video metadata)',
  price: `${creditsText(BATCH_PRICES.base)} + ${BATCH_PRICES.perVideo} per video`,
};

/** Videos fetched at once within one job. */
export const BATCH_VIDEO_CONCURRENCY = 4;
/** Finished results kept in memory ahead of the first unfinished one (bounds memory, keeps order). */
const WINDOW = 32;
/** Results are written in small batches: a poll sees progress, and a job never holds them all. */
const FLUSH_EVERY = 10;
/** A batch of 1000 videos at 4 at a time takes minutes; this bounds a stuck one. */
const BATCH_TIMEOUT_MS = 45 * 60_000;

/** What a batch needs from the platform (services.youtube). */
export interface BatchPlatform {
  transcript(videoId: string, request: TranscriptRequest): Promise<NativeTranscript>;
  video(videoId: string): Promise<VideoMetadata>;
  playlistVideos(id: string, options: PlaylistVideosOptions): Promise<VideoIdLists>;
  channelVideos(ref: string, options: ChannelVideosOptions): Promise<VideoIdLists>;
}

export interface BatchError {
  error: string;
  message: string;
}

export type BatchItem =
  | { videoId: string; transcript: Transcript }
  | { videoId: string; video: VideoMetadata }
  /** `errorCode` repeats `error.error` as a plain string, where the hosted API's SDKs read it. */
  | { videoId: string; error: BatchError; errorCode: string };

export interface BatchStats {
  total: number;
  succeeded: number;
  failed: number;
}

/** A finished batch's job result; the per-video results are the job's items. */
export interface BatchResult {
  stats: BatchStats;
}

export interface BatchJobDeps {
  registry: JobRegistry;
  youtube: BatchPlatform;
  items: JobItems;
}

function describeError(err: unknown): BatchError {
  if (err instanceof AppError) return { error: err.code, message: err.message };
  return { error: 'internal_error', message: 'internal error while fetching this video' };
}

/** The videos of a batch: the ids it names, or the first `limit` of its playlist or channel. */
async function resolveVideos(
  platform: BatchPlatform,
  source: BatchSource,
  signal: AbortSignal,
): Promise<string[]> {
  if ('videoIds' in source) return source.videoIds;
  const options = { limit: source.limit, signal };
  // A channel's `all`: its videos first, then shorts, then live, under one total.
  const lists = await abortable(
    'playlistId' in source
      ? platform.playlistVideos(source.playlistId, options)
      : platform.channelVideos(source.channelId, { ...options, type: 'all' }),
    signal,
  );
  return [...new Set([...lists.videoIds, ...lists.shortIds, ...lists.liveIds])].slice(0, source.limit);
}

/** Runs one batch: its items written in order as they finish, its stats as the result. */
async function runBatch<I extends BatchSource>(
  deps: BatchJobDeps,
  ctx: JobContext,
  input: I,
  fetchOne: (videoId: string) => Promise<BatchItem>,
): Promise<BatchResult> {
  const { items } = deps;
  // A rerun (a retry, or the worker before this one died) starts over.
  await items.clear(ctx.jobId);
  const stats: BatchStats = { total: 0, succeeded: 0, failed: 0 };
  let upstreamFailures = 0;
  let buffer: BatchItem[] = [];
  let written = 0;
  const flush = async () => {
    const batch = buffer;
    buffer = [];
    await items.append(ctx.jobId, written, batch);
    written += batch.length;
  };
  try {
    const videoIds = await resolveVideos(deps.youtube, input, ctx.signal);
    stats.total = videoIds.length;
    await inOrder(
      videoIds.length,
      BATCH_VIDEO_CONCURRENCY,
      WINDOW,
      async (i) => {
        const videoId = videoIds[i]!;
        ctx.signal.throwIfAborted();
        try {
          return await abortable(fetchOne(videoId), ctx.signal);
        } catch (err) {
          // The job itself is cut short (time limit, shutdown): not this video's fault.
          if (ctx.signal.aborted) throw ctx.signal.reason ?? err;
          const error = describeError(err);
          return { videoId, error, errorCode: error.error };
        }
      },
      async (item) => {
        if ('error' in item) {
          stats.failed++;
          if (item.error.error === 'upstream_error') upstreamFailures++;
        } else {
          stats.succeeded++;
        }
        buffer.push(item);
        if (buffer.length >= FLUSH_EVERY) await flush();
      },
    );
    // Every video failed because the platform failed us (blocked on every exit): that is the job
    // failing, not the videos — another attempt later, and nothing billed if it never succeeds.
    if (stats.total > 0 && upstreamFailures === stats.total) {
      throw retryable(
        `the platform failed every video of the batch (${videoIds[0]}: blocked or unreachable)`,
      );
    }
    await flush();
    return { stats };
  } catch (err) {
    await items.clear(ctx.jobId);
    throw err;
  }
}

function batchKind<I extends BatchSource>(
  deps: BatchJobDeps,
  kind: string,
  inputSchema: JobKind['inputSchema'],
  fetchOne: (input: I) => (videoId: string) => Promise<BatchItem>,
): JobKind<I, BatchResult> {
  return {
    kind,
    inputSchema,
    poll: batchPoll,
    price: BATCH_PRICE,
    estimate: (input) => BATCH_PRICES.base + BATCH_PRICES.perVideo * batchSize(input),
    cost: (_input, result) => BATCH_PRICES.base + BATCH_PRICES.perVideo * result.stats.succeeded,
    concurrency: 2,
    timeoutMs: BATCH_TIMEOUT_MS,
    run: (ctx, input) => runBatch(deps, ctx, input, fetchOne(input)),
  };
}

export function registerVideoBatches(deps: BatchJobDeps): void {
  const { youtube } = deps;
  deps.registry.register(
    batchKind<TranscriptBatchInput>(deps, TRANSCRIPT_BATCH_KIND, TranscriptBatchBody, (input) => {
      const shape = { text: input.text, chunkSize: input.chunkSize };
      // Batches use native captions only: speech recognition is a job of its own per video.
      const request: TranscriptRequest = { mode: 'native', lang: input.lang };
      return async (videoId) => ({
        videoId,
        transcript: shapeTranscript(await youtube.transcript(videoId, request), shape),
      });
    }),
  );
  deps.registry.register(
    batchKind<VideoBatchInput>(deps, VIDEO_BATCH_KIND, VideoBatchBody, () => async (videoId) => ({
      videoId,
      video: await youtube.video(videoId),
    })),
  );
}
