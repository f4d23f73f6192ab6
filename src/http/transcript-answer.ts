// The one transcript flow behind GET /v1/transcript and /v1/vidsite/transcript, for every platform:
// mode=native → the platform's captions or 404 transcript_unavailable; generate → speech recognition
// (after the 403/404 of a video that cannot be had); auto → captions, else speech recognition. The
// 200 answer costs 1 credit through paid(); the speech path is a job with its own hold.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { prices } from '../billing/prices.js';
import { AppError } from '../errors.js';
import type { MediaRef } from '../sources/platform.js';
import { shapeTranscript, type Transcript } from '../sources/transcript.js';
import { paid } from './plugins/billing.js';
import { submitSpeechTranscript } from './speech-submit.js';

export type TranscriptMode = 'native' | 'auto' | 'generate';

export interface TranscriptAsk {
  lang?: string;
  text: boolean;
  chunkSize?: number;
  mode: TranscriptMode;
}

/** Thrown out of paid()'s work (so nothing is debited) when auto mode must fall back to speech. */
class NoNativeCaptions extends Error {}

export async function answerTranscript(
  request: FastifyRequest,
  reply: FastifyReply,
  ref: MediaRef,
  ask: TranscriptAsk,
): Promise<Transcript | FastifyReply> {
  const { platforms } = request.server.services;
  const platform = platforms.get(ref.platform);
  const speech = () =>
    submitSpeechTranscript(request, reply, { ref, lang: ask.lang, text: ask.text, chunkSize: ask.chunkSize });
  if (ask.mode === 'generate') return speech();
  try {
    return await paid(request, reply, prices.syncRequest, 'Transcript', async () => {
      try {
        const native = await platform.nativeTranscript(ref, { lang: ask.lang });
        return shapeTranscript(native, { text: ask.text, chunkSize: ask.chunkSize });
      } catch (err) {
        if (ask.mode === 'auto' && err instanceof AppError && err.code === 'transcript_unavailable') {
          throw new NoNativeCaptions();
        }
        throw err;
      }
    });
  } catch (err) {
    if (err instanceof NoNativeCaptions) return speech();
    throw err;
  }
}
