// Job kind `extract` (POST /v1/extract): structured data from a video — its transcript (captions,
// else speech recognition) and key frames given to the language model with the caller's JSON
// schema, or one the model proposes first. 5 credits per started minute (minimum 5): the minimum is
// held at acceptance, the rest once the media is measured.

import { Type } from '@sinclair/typebox';
import { prices, startedMinutes } from '../billing/prices.js';
import { permanent } from '../errors.js';
import { budget } from './ai/budget.js';
import { type AiJobDeps, aiJobTimeoutMs, fetchMedia } from './ai/job-media.js';
import { keyFrames } from './frames.js';
import { extractData, proposeSchema } from './llm/extract.js';
import type { JsonSchema } from './llm/schema.js';
import { frameParts, transcriptText, videoTranscript } from './vision/context.js';

export interface ExtractInput {
  url: string;
  prompt?: string;
  schema?: JsonSchema;
}

export interface ExtractResult {
  data: unknown;
  /** The schema the data follows: the caller's, or the one the model proposed. */
  schema: JsonSchema;
}

/** Frames shown to the model (with the transcript) and their size. */
export const EXTRACT_FRAMES = 8;
export const EXTRACT_FRAME_RESOLUTION = 512;

export const extractCredits = (seconds: number) =>
  Math.max(prices.extractMinimum, prices.extractPerMinute * startedMinutes(seconds));

const charged = new WeakMap<object, number>();

export function registerExtract(deps: AiJobDeps): void {
  deps.registry.register<ExtractInput, ExtractResult>({
    kind: 'extract',
    perAccount: 'mediaJobs',
    inputSchema: Type.Object({
      url: Type.String(),
      prompt: Type.Optional(Type.String()),
      schema: Type.Optional(Type.Any()),
    }),
    concurrency: 2,
    timeoutMs: aiJobTimeoutMs(deps.settings),
    estimate: () => prices.extractMinimum,
    cost: (_input, result) => charged.get(result) ?? prices.extractMinimum,
    run: (ctx, input) =>
      deps.scratch.with(`extract-${ctx.jobId}`, async (dir) => {
        const calls = { budget: budget(deps.settings.jobBudgetMs), signal: ctx.signal };
        const media = await fetchMedia(deps, input.url, dir, ctx.signal, deps.settings.maxMediaSeconds);
        const seconds = media.probed.durationSec;
        await ctx.holdMore(extractCredits(seconds) - prices.extractMinimum);
        const transcript = await videoTranscript(deps, media, { ...calls, dir });
        const frames = media.probed.hasVideo
          ? await keyFrames(media.file, {
              max: EXTRACT_FRAMES,
              maxResolution: EXTRACT_FRAME_RESOLUTION,
              dir,
              signal: ctx.signal,
              probed: media.probed,
            })
          : [];
        if (!transcript && frames.length === 0) {
          throw permanent('The media has neither pictures nor speech to extract from', 'invalid_request');
        }
        const context = {
          prompt: input.prompt,
          transcript: transcript ? transcriptText(transcript.cues) : null,
          frames: await frameParts(frames, 'low'),
        };
        const schema = input.schema ?? (await proposeSchema(deps.ai.llm, context, calls));
        const data = await extractData(deps.ai.llm, schema, context, calls);
        const result: ExtractResult = { data, schema };
        charged.set(result, extractCredits(seconds));
        return result;
      }),
  });
}
