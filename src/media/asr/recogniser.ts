// What recognises the speech of one part of a recording: an OpenAI-compatible provider
// (transcribe.ts) or whisper.cpp on this machine (whisper/). recognise.ts cuts the recording into
// parts no longer than the recogniser takes and stitches what each part gives back.
import type { TranscriptCue } from '../../sources/transcript.js';
import type { CallOptions } from '../ai/client.js';
import type { Part } from './split.js';

export interface PartResult {
  cues: TranscriptCue[];
  /** As the recogniser named it (a name or a code). */
  language: string | null;
}

export interface PartRequest extends CallOptions {
  /** Scratch directory of the job. */
  dir: string;
  /** Which part of the recording (for naming its files). */
  index: number;
  /** The language the caller expects (ISO 639-1, maybe with a region): a hint, never a filter. */
  lang?: string;
}

export interface SpeechRecogniser {
  /** Longest part, in seconds, recognised in one go. */
  readonly maxPartSeconds: number;
  /** The cues of [part.startSec, part.endSec) of the 16 kHz FLAC `audio`, on the whole recording's clock. */
  recognisePart(audio: string, part: Part, request: PartRequest): Promise<PartResult>;
}
