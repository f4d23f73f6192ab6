// Where a transcript request turns into a speech-recognition job: answers 202 {jobId} (the same job
// for a repeated request while it runs: the kind's dedupe key). A video that cannot be had answers
// its 403/404 first, then 503 provider_unavailable when no recogniser is configured; all of that
// and the media lookup run under one sizing hold, released before the job holds its own estimate.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { requireProvider } from '../media/ai/providers.js';
import type { SpeechJobInput } from '../media/transcript-job.js';
import type { MediaRef } from '../sources/platform.js';
import { sendJobAccepted } from './job-route.js';
import { principal } from './plugins/auth.js';
import { sizingJob } from './plugins/billing.js';

export interface SpeechTranscriptRequest {
  readonly ref: MediaRef;
  readonly lang?: string;
  readonly text?: boolean;
  readonly chunkSize?: number;
}

export async function submitSpeechTranscript(
  request: FastifyRequest,
  reply: FastifyReply,
  wanted: SpeechTranscriptRequest,
): Promise<FastifyReply> {
  const { config, jobs, ledger, platforms } = request.server.services;
  const { accountId } = principal(request);
  // The platform's length sizes the hold; media that is private, gone or too long fails here, unbilled.
  const { location } = await sizingJob(request, async () => {
    await platforms.checkAvailable(wanted.ref);
    requireProvider(config.ai.asr, 'speech recognition');
    return platforms.locate(wanted.ref.url);
  });
  const maxSeconds = config.ai.maxMediaSeconds;
  if (location.durationSec !== null && location.durationSec > maxSeconds) {
    throw new AppError(
      'payload_too_large',
      `The media lasts ${Math.ceil(location.durationSec / 60)} minutes; speech recognition takes at most ${maxSeconds / 60}`,
      'url',
    );
  }
  // `lang` only chooses among native tracks: the recogniser reports the language it hears.
  const input: SpeechJobInput = {
    url: wanted.ref.url,
    ...(wanted.text !== undefined && { text: wanted.text }),
    ...(wanted.chunkSize !== undefined && { chunkSize: wanted.chunkSize }),
    durationSec: location.durationSec,
  };
  const { jobId } = await jobs.service.submit({ accountId, kind: 'transcript', input });
  return sendJobAccepted(reply, ledger, accountId, jobId);
}
