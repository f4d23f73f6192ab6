// Speech recognition of one media file: its sound extracted, measured, cut on pauses into parts
// under the provider's upload limit, each part recognised, the cues stitched on one clock.

import path from 'node:path';
import { permanent } from '../../errors.js';
import type { TranscriptCue } from '../../sources/transcript.js';
import type { AiClient, CallOptions } from '../ai/client.js';
import { probe } from '../ffmpeg.js';
import { encodePart, extractAudio, PART_BYTES_PER_SECOND } from './audio.js';
import { languageCode } from './languages.js';
import { detectSilences } from './silence.js';
import { planParts } from './split.js';
import { transcribePart } from './transcribe.js';

export interface SpeechOptions extends CallOptions {
  client: AiClient;
  /** Scratch directory of the job. */
  dir: string;
  maxUploadBytes: number;
  /** Longer sound is refused (413). */
  maxSeconds: number;
  /** Told the sound's length before any provider call (the job holds credits for it here). */
  onDuration?(seconds: number): Promise<void>;
}

export interface SpeechResult {
  cues: TranscriptCue[];
  /** ISO 639-1 code ("und" when the recogniser did not say). */
  lang: string;
  durationSec: number;
  parts: number;
}

/** Longest part that stays under the upload limit (container overhead kept aside). */
export const maxPartSeconds = (maxUploadBytes: number) =>
  Math.max(2, Math.floor((maxUploadBytes * 0.97 - 4096) / PART_BYTES_PER_SECOND));

export async function recogniseSpeech(media: string, opts: SpeechOptions): Promise<SpeechResult> {
  const audio = path.join(opts.dir, 'audio.flac');
  // A second past the cap tells "too long" apart from "exactly at the cap".
  await extractAudio(media, audio, { maxSeconds: opts.maxSeconds + 1, signal: opts.signal });
  const { durationSec } = await probe(audio, { signal: opts.signal });
  if (durationSec > opts.maxSeconds) {
    throw permanent(
      `The audio is longer than the ${Math.round(opts.maxSeconds / 60)} minutes this server recognises`,
      'payload_too_large',
    );
  }
  await opts.onDuration?.(durationSec);
  const maxPart = maxPartSeconds(opts.maxUploadBytes);
  const silences =
    durationSec > maxPart ? await detectSilences(audio, durationSec, { signal: opts.signal }) : [];
  const parts = planParts(durationSec, silences, maxPart);
  const cues: TranscriptCue[] = [];
  const heard = new Map<string, number>();
  for (const [i, part] of parts.entries()) {
    const file = path.join(opts.dir, `part-${i}.mp3`);
    const bytes = await encodePart(audio, file, part, opts.signal);
    if (bytes > opts.maxUploadBytes) {
      throw permanent(`audio part ${i} is ${bytes} bytes, over the upload limit`, 'internal_error');
    }
    const result = await transcribePart(opts.client, file, part, opts);
    cues.push(...result.cues);
    if (result.language) {
      const code = languageCode(result.language);
      heard.set(code, (heard.get(code) ?? 0) + (part.endSec - part.startSec));
    }
  }
  // The language heard over most of the recording.
  const lang = [...heard.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'und';
  return { cues, lang, durationSec, parts: parts.length };
}
