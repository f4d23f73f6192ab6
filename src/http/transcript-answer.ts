// GET /v1/transcript and /v1/vidsite/transcript answer the transcript decision (media/transcripts.ts):
// captions are a paid 200, a speech-recognition job a 202 {jobId}.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TranscriptAsk } from '../media/transcripts.js';
import type { MediaRef } from '../sources/platform.js';
import type { SendAnswer } from './answer-body.js';
import type { HttpContext } from './context.js';
import { principal } from './plugins/auth.js';
import { sendCharged, sendJobAccepted } from './plugins/billing.js';

export async function answerTranscript(
  transcripts: HttpContext['transcripts'],
  request: FastifyRequest,
  reply: FastifyReply,
  ref: MediaRef,
  ask: TranscriptAsk,
  send: SendAnswer,
): Promise<FastifyReply> {
  const caller = { accountId: principal(request).accountId, requestId: request.id };
  const outcome = await transcripts.transcript(caller, ref, ask);
  if (outcome.kind === 'speech_job') return sendJobAccepted(reply, outcome.jobId, outcome);
  sendCharged(reply, outcome.charged, outcome.remaining);
  return send(reply, outcome.transcript);
}
