// Audio for speech recognition: the media's sound as 16 kHz mono (what recognisers work at), first
// as lossless FLAC for measuring and cutting, then each upload part as 32 kbit/s MP3 (≈ 14 MB an
// hour, so one part holds over 1½ hours under a 25 MB limit). ffmpeg streams; nothing is held in memory.

import { stat } from 'node:fs/promises';
import { permanent } from '../../errors.js';
import { ffmpegPath, MediaToolError, runTool } from '../ffmpeg.js';
import { mediaInput } from '../input.js';

/** Bytes per second of an upload part (32 kbit/s constant bit rate). */
export const PART_BYTES_PER_SECOND = 4000;
const PART_BITRATE = '32k';

const toolTimeoutMs = (seconds: number) => 60_000 + seconds * 200;

/** The sound of `input` (at most `maxSeconds` of it) as 16 kHz mono FLAC in `output`. */
export async function extractAudio(
  input: string,
  output: string,
  opts: { maxSeconds: number; signal: AbortSignal },
): Promise<void> {
  const args = ['-nostdin', '-v', 'error', ...mediaInput(input), '-map', '0:a:0', '-vn', '-sn', '-dn'];
  args.push('-ac', '1', '-ar', '16000', '-t', String(opts.maxSeconds), '-c:a', 'flac', '-y', output);
  try {
    await runTool(ffmpegPath(), args, { signal: opts.signal, timeoutMs: toolTimeoutMs(opts.maxSeconds) });
  } catch (err) {
    if (err instanceof MediaToolError) {
      throw permanent('The media has no sound that can be decoded', 'invalid_request');
    }
    throw err;
  }
}

/** [startSec, endSec) of `source` encoded as an upload part; answers its size in bytes. */
export async function encodePart(
  source: string,
  output: string,
  part: { startSec: number; endSec: number },
  signal: AbortSignal,
): Promise<number> {
  const args = ['-nostdin', '-v', 'error', ...mediaInput(source, ['-ss', part.startSec.toFixed(3)])];
  args.push('-t', (part.endSec - part.startSec).toFixed(3), '-ac', '1', '-ar', '16000');
  args.push('-c:a', 'libmp3lame', '-b:a', PART_BITRATE, '-y', output);
  await runTool(ffmpegPath(), args, { signal, timeoutMs: toolTimeoutMs(part.endSec - part.startSec) });
  return (await stat(output)).size;
}
