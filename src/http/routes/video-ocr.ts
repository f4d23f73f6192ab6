// POST /v1/video/ocr: an OCR job (the text shown on screen, as timed segments); polled at
// GET /v1/video/ocr/{jobId} (the shared poll routes: `pending` while queued).

import { WAIT_NOTE } from '../../mcp/tools.js';
import { OCR_DEFAULT_HOLD_MINUTES, OCR_KIND, OcrBody, type OcrInput, ocrPoll } from '../../media/ocr-job.js';
import type { HttpContext } from '../context.js';
import { jobRoute, pollRoute } from '../job-route.js';
import type { RoutePlugin } from '../typed.js';

type VideoOcrDeps = Pick<HttpContext, 'platforms' | 'jobs' | 'fetcher' | 'charges' | 'config'>;

export const videoOcrRoutes: RoutePlugin<VideoOcrDeps> = async (app, deps) => {
  const { platforms } = deps;
  jobRoute(app, deps, {
    path: '/v1/video/ocr',
    kind: OCR_KIND,
    tags: ['Videos'],
    operationId: 'ocr',
    mcp: {
      name: 'ocr',
      description: `The text shown on screen in a video, as timed segments (a job). ${WAIT_NOTE}`,
      wait: true,
    },
    summary: 'Read the text shown in a video (a job): poll GET /v1/video/ocr/{jobId}',
    description:
      'Frames are sampled twice a second; the ones whose overlaid text may have changed are read with ' +
      'Tesseract, and identical or near-identical readings on consecutive frames are merged into segments ' +
      '`{text, startMs, endMs}` (captions, titles, logos, tickers: each line followed on its own). The poll ' +
      'answer has the segments in `text` and, in `content`, the same rendered as `format`: `json` (default), ' +
      '`text` (one line per segment), `srt` or `vtt`. 1 credit per started minute of video: ' +
      `${OCR_DEFAULT_HOLD_MINUTES} credits are held at once, more once the length is known. A URL without a ` +
      'video stream fails the job (`invalid_request`, nothing charged).',
    body: OcrBody,
    toInputFetches: true,
    toInput: async (body): Promise<OcrInput> => {
      // Unsupported or malformed URLs are a 400 now, not a failed job later.
      const ref = await platforms.recognise(body.url);
      return { url: ref.url, format: body.format ?? 'json' };
    },
  });

  pollRoute(app, deps, {
    path: '/v1/video/ocr/:jobId',
    kinds: [OCR_KIND],
    poll: ocrPoll,
    operationId: 'ocrPoll',
    summary: 'Poll an OCR job',
  });
};
