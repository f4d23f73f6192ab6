// What describe and extract show a model about a video: its key frames as image parts (JPEG data
// URLs, each after a text part with its time) and its transcript as timed text — the platform's
// captions when it has them, else speech recognition when a recogniser is configured.
import { readFile } from 'node:fs/promises';
import { AppError } from '../../errors.js';
import { shapeTranscript, type Transcript, type TranscriptCue } from '../../sources/transcript.js';
import type { ContentPart } from '../ai/chat.js';
import type { CallOptions } from '../ai/client.js';
import type { AiJobDeps, FetchedMedia } from '../ai/job-media.js';
import { recogniseSpeech } from '../asr/recognise.js';
import type { KeyFrame } from '../frames.js';

/** Transcript characters given to a model (about 5 000 tokens). */
export const MAX_TRANSCRIPT_CHARS = 20_000;

export const clock = (ms: number) => {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
};

export interface VideoTranscript {
  transcript: Transcript;
  cues: TranscriptCue[];
  source: 'native' | 'speech';
  /** Seconds of sound recognised (0 for native captions). */
  recognisedSec: number;
}

/**
 * The video's transcript: native captions, else speech recognition, else null (no captions, no
 * recogniser or no sound). `onSpeech` is told the sound's length before it is recognised.
 */
export async function videoTranscript(
  deps: Pick<AiJobDeps, 'sources' | 'ai' | 'settings'>,
  media: FetchedMedia,
  opts: CallOptions & { dir: string; onSpeech?(seconds: number): Promise<void> },
): Promise<VideoTranscript | null> {
  try {
    const native = await deps.sources.nativeTranscript(media.ref, { signal: opts.signal });
    if (native.cues.length > 0) {
      return { transcript: shapeTranscript(native), cues: native.cues, source: 'native', recognisedSec: 0 };
    }
  } catch (err) {
    // No captions (or no such feature on the platform): recognise instead. Other failures count.
    if (!(err instanceof AppError && (err.code === 'not_found' || err.code === 'transcript_unavailable')))
      throw err;
  }
  if (!deps.ai.speech || !media.probed.hasAudio) return null;
  const speech = await recogniseSpeech(media.file, {
    recogniser: deps.ai.speech,
    dir: opts.dir,
    maxSeconds: deps.settings.maxMediaSeconds,
    budget: opts.budget,
    signal: opts.signal,
    onDuration: opts.onSpeech,
  });
  if (speech.cues.length === 0) return null;
  const transcript = shapeTranscript({ cues: speech.cues, lang: speech.lang, availableLangs: [] });
  return { transcript, cues: speech.cues, source: 'speech', recognisedSec: speech.durationSec };
}

/** "[00:12] text" lines, cut at MAX_TRANSCRIPT_CHARS. */
export function transcriptText(cues: readonly TranscriptCue[], maxChars = MAX_TRANSCRIPT_CHARS): string {
  let out = '';
  for (const c of cues) {
    const line = `[${clock(c.offset)}] ${c.text}\n`;
    if (out.length + line.length > maxChars) return `${out}[… transcript cut here]\n`;
    out += line;
  }
  return out;
}

/** Each frame as a text part with its time, then the picture. */
export async function frameParts(
  frames: readonly KeyFrame[],
  detail: 'low' | 'high' | 'auto' = 'auto',
): Promise<ContentPart[]> {
  const parts: ContentPart[] = [];
  for (const [i, f] of frames.entries()) {
    const jpeg = await readFile(f.path);
    parts.push({ type: 'text', text: `Frame ${i + 1} at ${clock(f.timeMs)}:` });
    parts.push({
      type: 'image_url',
      image_url: { url: `data:image/jpeg;base64,${jpeg.toString('base64')}`, detail },
    });
  }
  return parts;
}
