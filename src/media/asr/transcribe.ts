// One upload part through the OpenAI-compatible /audio/transcriptions API (verbose_json, segment
// timestamps), its segments turned into cues in ms on the whole recording's clock.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { permanent } from '../../errors.js';
import type { TranscriptCue } from '../../sources/transcript.js';
import type { AiClient, CallOptions } from '../ai/client.js';
import { encodePart, PART_BYTES_PER_SECOND } from './audio.js';
import { recogniserLanguage } from './languages.js';
import type { PartResult, SpeechRecogniser } from './recogniser.js';
import type { Part } from './split.js';

interface VerboseSegment {
  start?: number;
  end?: number;
  text?: string;
  no_speech_prob?: number;
  avg_logprob?: number;
}

export interface VerboseTranscription {
  language?: string;
  duration?: number;
  text?: string;
  segments?: VerboseSegment[];
}

/** Segments → cues offset by where the part starts; silence the model invented is dropped. Pure. */
export function segmentsToCues(answer: VerboseTranscription, part: Part): TranscriptCue[] {
  const partMs = Math.round((part.endSec - part.startSec) * 1000);
  const base = Math.round(part.startSec * 1000);
  const segments = answer.segments ?? [];
  if (segments.length === 0) {
    // Models that give only text (gpt-4o-transcribe): one cue for the part.
    const text = (answer.text ?? '').replace(/\s+/g, ' ').trim();
    return text ? [{ text, offset: base, duration: partMs }] : [];
  }
  const cues: TranscriptCue[] = [];
  for (const s of segments) {
    const text = (s.text ?? '').replace(/\s+/g, ' ').trim();
    if (!text) continue;
    // Whisper's known hallucination on silence: unlikely speech, low confidence.
    if ((s.no_speech_prob ?? 0) > 0.6 && (s.avg_logprob ?? 0) < -1) continue;
    const startMs = Math.min(partMs, Math.max(0, Math.round((s.start ?? 0) * 1000)));
    const endMs = Math.min(partMs, Math.max(startMs, Math.round((s.end ?? s.start ?? 0) * 1000)));
    const previous = cues[cues.length - 1];
    // The same line repeated back to back is a decoding loop, not speech.
    if (previous && previous.text === text && previous.offset + previous.duration >= base + startMs - 1000)
      continue;
    cues.push({ text, offset: base + startMs, duration: endMs - startMs });
  }
  return cues;
}

export async function transcribePart(
  client: AiClient,
  file: string,
  part: Part,
  opts: CallOptions & { lang?: string },
): Promise<PartResult> {
  // The request's language as a hint (the API takes ISO 639-1 without a region).
  const language = recogniserLanguage(opts.lang);
  const hint = language ? [{ name: 'language', value: language }] : [];
  const answer = await client.postMultipart<VerboseTranscription>(
    '/audio/transcriptions',
    [
      { name: 'file', filename: 'audio.mp3', contentType: 'audio/mpeg', data: await readFile(file) },
      { name: 'model', value: client.model },
      { name: 'response_format', value: 'verbose_json' },
      { name: 'timestamp_granularities[]', value: 'segment' },
      ...hint,
    ],
    opts,
  );
  return { cues: segmentsToCues(answer, part), language: answer.language ?? null };
}

/** Longest part that stays under the upload limit (container overhead kept aside). */
export const maxPartSeconds = (maxUploadBytes: number) =>
  Math.max(2, Math.floor((maxUploadBytes * 0.97 - 4096) / PART_BYTES_PER_SECOND));

/** The provider as a recogniser: each part uploaded as MP3 under the provider's size limit. */
export function providerRecogniser(client: AiClient, maxUploadBytes: number): SpeechRecogniser {
  return {
    maxPartSeconds: maxPartSeconds(maxUploadBytes),
    async recognisePart(audio, part, request) {
      const file = path.join(request.dir, `part-${request.index}.mp3`);
      const bytes = await encodePart(audio, file, part, request.signal);
      if (bytes > maxUploadBytes) {
        throw permanent(
          `audio part ${request.index} is ${bytes} bytes, over the upload limit`,
          'internal_error',
        );
      }
      return transcribePart(client, file, part, request);
    },
  };
}
