// POST /v1/video/describe: a describe job (AI vision over key frames, or the text shown on them with
// mode=ocr); polled at GET /v1/video/describe/{jobId} (the shared poll routes).

import { WAIT_NOTE } from '../../mcp/tools.js';
import { requireProvider } from '../../media/ai/providers.js';
import { DESCRIBE_KIND, DescribeBody, type DescribeInput, describePoll } from '../../media/describe-job.js';
import type { HttpContext } from '../context.js';
import { jobRoute, pollRoute } from '../job-route.js';
import type { RoutePlugin } from '../typed.js';

type VideoDescribeDeps = Pick<HttpContext, 'platforms' | 'config' | 'jobs' | 'fetcher' | 'charges'>;

export const videoDescribeRoutes: RoutePlugin<VideoDescribeDeps> = async (app, deps) => {
  const { platforms, config } = deps;
  jobRoute(app, deps, {
    path: '/v1/video/describe',
    kind: DESCRIBE_KIND,
    tags: ['Videos'],
    operationId: 'describe',
    mcp: {
      name: 'describe',
      description: `Describe a video with AI vision over its key frames (a job). ${WAIT_NOTE}`,
      wait: true,
    },
    summary: 'Describe a video with AI vision (a job): poll GET /v1/video/describe/{jobId}',
    description:
      'Up to `maxFrames` frames, chosen where the picture changes (evenly spread otherwise), scaled so the long ' +
      'side is at most `maxResolution`, are sent to the vision model with `prompt`. `includeTranscript` adds ' +
      'the transcript (captions, else speech recognition when configured) to the prompt and the result. ' +
      '`mode=ocr` answers with the text shown on the frames instead. Holds 5 + `maxFrames` credits and costs ' +
      '5 + frames used (+ 2 per started minute when speech had to be recognised). Result: ' +
      '`{description, frames:[{timeMs, width, height}], transcript?}`. 503 `provider_unavailable` when no ' +
      'vision model is configured (mode=describe).',
    body: DescribeBody,
    toInputFetches: true,
    toInput: async (body): Promise<DescribeInput> => {
      // Unsupported or malformed URLs are a 400 now, not a failed job later.
      const ref = await platforms.recognise(body.url);
      const mode = body.mode ?? 'describe';
      if (mode === 'describe') requireProvider(config.ai.vision, 'a vision model');
      return {
        url: ref.url,
        mode,
        ...(body.prompt?.trim() && { prompt: body.prompt.trim() }),
        maxFrames: body.maxFrames ?? 8,
        maxResolution: body.maxResolution ?? 512,
        includeTranscript: body.includeTranscript ?? false,
      };
    },
  });

  pollRoute(app, deps, {
    path: '/v1/video/describe/:jobId',
    kinds: [DESCRIBE_KIND],
    poll: describePoll,
    operationId: 'describePoll',
    summary: 'Poll a describe job',
  });
};
