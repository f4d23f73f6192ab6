// whisper.cpp as a recogniser: each part of the recording decoded by ffmpeg to the raw 16 kHz
// float samples whisper.cpp reads, recognised by the engine's child process, its segments made cues.
import path from 'node:path';
import { ffmpegPath, runTool } from '../../ffmpeg.js';
import { mediaInput } from '../../input.js';
import { recogniserLanguage } from '../languages.js';
import type { SpeechRecogniser } from '../recogniser.js';
import type { Part } from '../split.js';
import { segmentsToCues } from '../transcribe.js';
import type { WhisperEngine } from './engine.js';

/** Ten minutes a part: 38 MB of samples in the child, and pauses to cut on are easy to find. */
export const WHISPER_PART_SECONDS = 600;

/** [startSec, endSec) of `audio` as raw little-endian 32-bit floats, 16 kHz mono. */
async function decodePart(audio: string, output: string, part: Part, signal: AbortSignal): Promise<void> {
  const seconds = part.endSec - part.startSec;
  const args = ['-nostdin', '-v', 'error', ...mediaInput(audio, ['-ss', part.startSec.toFixed(3)])];
  args.push('-t', seconds.toFixed(3), '-ac', '1', '-ar', '16000', '-f', 'f32le', '-y', output);
  await runTool(ffmpegPath(), args, { signal, timeoutMs: 60_000 + seconds * 200 });
}

/** A part may take `factor` times its own length, plus a minute for loading the model. */
export const partTimeout = (factor: number) => (seconds: number) =>
  Math.round(60_000 + seconds * 1000 * factor);

export function whisperRecogniser(
  engine: WhisperEngine,
  timeoutMs: (partSeconds: number) => number,
): SpeechRecogniser {
  return {
    maxPartSeconds: WHISPER_PART_SECONDS,
    async recognisePart(audio, part, request) {
      const pcmFile = path.join(request.dir, `part-${request.index}.f32`);
      await decodePart(audio, pcmFile, part, request.signal);
      const answer = await engine.recognise({
        pcmFile,
        language: recogniserLanguage(request.lang),
        timeoutMs: timeoutMs(part.endSec - part.startSec),
        signal: request.signal,
      });
      const segments = answer.segments.map((s) => ({
        text: s.text,
        start: s.startMs / 1000,
        end: s.endMs / 1000,
      }));
      return { cues: segmentsToCues({ segments }, part), language: answer.language };
    },
  };
}
