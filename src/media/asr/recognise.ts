// Speech recognition of one media file: its sound extracted, measured, cut on pauses into parts
// no longer than the recogniser takes, each part recognised, the cues stitched on one clock.

import path from 'node:path';
import { permanent } from '../../errors.js';
import type { TranscriptCue } from '../../sources/transcript.js';
import type { CallOptions } from '../ai/client.js';
import { probe } from '../ffmpeg.js';
import { extractAudio } from './audio.js';
import { languageCode } from './languages.js';
import type { SpeechRecogniser } from './recogniser.js';
import { detectSilences } from './silence.js';
import { planParts } from './split.js';

export interface SpeechOptions extends CallOptions {
  recogniser: SpeechRecogniser;
  /** Scratch directory of the job. */
  dir: string;
  /** The language the caller expects: a hint to the recogniser. */
  lang?: string;
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
  const maxPart = opts.recogniser.maxPartSeconds;
  const silences =
    durationSec > maxPart ? await detectSilences(audio, durationSec, { signal: opts.signal }) : [];
  const parts = planParts(durationSec, silences, maxPart);
  const cues: TranscriptCue[] = [];
  const heard = new Map<string, number>();
  for (const [index, part] of parts.entries()) {
    const result = await opts.recogniser.recognisePart(audio, part, {
      dir: opts.dir,
      index,
      budget: opts.budget,
      signal: opts.signal,
      ...(opts.lang && { lang: opts.lang }),
    });
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
