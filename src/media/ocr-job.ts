// Job kind `ocr` (POST /v1/video/ocr): the video of a URL downloaded into the job's scratch dir,
// probed, and its on-screen text read (frames sampled at a fixed rate, OCR only where the text may
// have changed, lines merged into timed segments), rendered in the asked format. Billing: the length
// is unknown at acceptance, so a default of minutes is held and topped up after probing; the cost is
// 1 credit per started minute of video.

import { Type } from '@sinclair/typebox';
import { creditsText, type PriceRow, startedMinutes } from '../billing/prices.js';
import { permanent } from '../errors.js';
import type { JobRegistry } from '../jobs/registry.js';
import type { JobPoll } from '../jobs/types.js';
import { asObj, ErrorTextSchema, errorText, storedResult } from '../jobs/views.js';
import { Nullable, StringEnum } from '../schemas.js';
import { fetchMedia, MEDIA_JOBS_LIMIT, type MediaFetcher, type MediaSources } from './ai/job-media.js';
import { OCR_FORMATS, type OcrFormat, renderSegments } from './ocr/render.js';
import type { OcrSegment } from './ocr/segments.js';
import { ocrVideo } from './ocr/video-ocr.js';
import type { Scratch } from './scratch.js';

export const OcrBody = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: 'Video URL (a supported platform or a file)',
  }),
  format: Type.Optional(
    Type.Union(
      OCR_FORMATS.map((f) => Type.Literal(f)),
      { default: 'json', description: 'How `content` is rendered: json (the segments), text, srt or vtt' },
    ),
  ),
});

export interface OcrInput {
  url: string;
  format: OcrFormat;
}

export interface OcrResult {
  /** The segments: each text shown and when (ms). */
  text: OcrSegment[];
  format: OcrFormat;
  content: string;
  stats: { videoMs: number; sampledFrames: number; ocrFrames: number };
}

/** The kind's name: its queue, and the `kind` its route submits. */
export const OCR_KIND = 'ocr';

/** The OCR poll answer (and webhook data): `pending` while queued, attempts, segments and their rendering. */
export const ocrPoll: JobPoll = {
  schema: Type.Object({
    status: StringEnum(['pending', 'active', 'completed', 'failed', 'cancelled'] as const, {
      description: '`pending` while queued',
    }),
    attempts: Type.Integer(),
    maxAttempts: Type.Integer(),
    durationMs: Nullable(Type.Integer()),
    error: ErrorTextSchema,
    text: Nullable(
      Type.Array(
        Type.Object(
          { text: Type.String(), startMs: Type.Number(), endMs: Type.Number() },
          { additionalProperties: true },
        ),
        { description: 'Each text shown and when (ms); null until the job completes' },
      ),
    ),
    format: Type.String({ description: 'How `content` is rendered: json, text, srt or vtt' }),
    content: Nullable(Type.String({ description: 'The segments rendered as `format`' })),
  }),
  view(job) {
    const r = asObj(storedResult(job));
    return {
      status: job.status === 'queued' ? 'pending' : job.status,
      attempts: job.attempts,
      maxAttempts: job.max_attempts,
      durationMs: job.duration_ms,
      error: errorText(job),
      text: r.text ?? null,
      format: (r.format as string) ?? (asObj(JSON.parse(job.input)).format as string) ?? 'json',
      content: (r.content as string) ?? null,
    };
  },
};

/** OCR's rates, in credits: per started minute of video. */
export const OCR_PRICES = { perMinute: 1 } as const;

/** Its row of the price table. */
export const OCR_PRICE: PriceRow = {
  operation: 'On-screen text (OCR)',
  price: `${creditsText(OCR_PRICES.perMinute)} per started minute`,
};

/** Minutes held when a job is accepted, before the video's length is known. */
export const OCR_DEFAULT_HOLD_MINUTES = 10;

export interface OcrJobDeps {
  registry: JobRegistry;
  sources: Pick<MediaSources, 'locate'>;
  downloader: MediaFetcher;
  scratch: Scratch;
  settings: {
    /** Longest video taken (seconds). */
    maxSeconds: number;
    jobConcurrency: number;
    processes: number;
    fps: number;
  };
}

export function registerOcr(deps: OcrJobDeps): void {
  const { settings } = deps;
  deps.registry.register<OcrInput, OcrResult>({
    kind: OCR_KIND,
    perAccount: MEDIA_JOBS_LIMIT,
    poll: ocrPoll,
    inputSchema: OcrBody,
    concurrency: settings.jobConcurrency,
    // Download, decoding and OCR of the longest video allowed, with room to spare.
    timeoutMs: 30 * 60_000 + settings.maxSeconds * 1000,
    price: OCR_PRICE,
    estimate: () => OCR_PRICES.perMinute * OCR_DEFAULT_HOLD_MINUTES,
    cost: (_input, result) => OCR_PRICES.perMinute * startedMinutes(result.stats.videoMs / 1000),
    run: (ctx, input) =>
      deps.scratch.with(`ocr-${ctx.jobId}`, async (dir) => {
        const media = await fetchMedia(
          {
            sources: { locate: (url, signal) => deps.sources.locate(url, signal), nativeTranscript: notUsed },
            downloader: deps.downloader,
          },
          input.url,
          dir,
          ctx.signal,
        );
        if (!media.probed.hasVideo) {
          throw permanent(`Invalid parameter 'url': ${input.url} has no video stream`, 'invalid_request');
        }
        const seconds = media.probed.durationSec;
        if (seconds > settings.maxSeconds) {
          throw permanent(
            `The video is ${Math.round(seconds)} s long; OCR takes videos up to ${settings.maxSeconds} s`,
            'payload_too_large',
          );
        }
        const needed = OCR_PRICES.perMinute * startedMinutes(seconds);
        const held = OCR_PRICES.perMinute * OCR_DEFAULT_HOLD_MINUTES;
        if (needed > held) await ctx.holdMore(needed - held);
        const { segments, stats } = await ocrVideo(media.file, {
          scratchDir: dir,
          fps: settings.fps,
          concurrency: settings.processes,
          signal: ctx.signal,
          probed: media.probed,
        });
        return {
          text: segments,
          format: input.format,
          content: renderSegments(segments, input.format),
          stats: {
            videoMs: stats.durationMs,
            sampledFrames: stats.sampledFrames,
            ocrFrames: stats.ocrFrames,
          },
        };
      }),
  });
}

function notUsed(): never {
  throw new Error('OCR reads no captions');
}
