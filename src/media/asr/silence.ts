// Where the sound goes quiet: ffmpeg's silencedetect, its findings written by ametadata to a file
// (stderr is only kept as a tail, and a long recording has many pauses).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ffmpegPath, runTool } from '../ffmpeg.js';
import { mediaInput } from '../input.js';

export interface Silence {
  startSec: number;
  endSec: number;
}

/** Pairs `lavfi.silence_start` / `lavfi.silence_end` lines; a silence still open at the end runs to `durationSec`. Pure. */
export function parseSilences(text: string, durationSec: number): Silence[] {
  const out: Silence[] = [];
  let open: number | null = null;
  for (const m of text.matchAll(/lavfi\.silence_(start|end)=(-?\d+(?:\.\d+)?)/g)) {
    const at = Math.max(0, Number(m[2]));
    if (m[1] === 'start') open = at;
    else if (open !== null) {
      out.push({ startSec: open, endSec: at });
      open = null;
    }
  }
  if (open !== null && open < durationSec) out.push({ startSec: open, endSec: durationSec });
  return out;
}

export async function detectSilences(
  audio: string,
  durationSec: number,
  opts: { signal: AbortSignal; noiseDb?: number; minSeconds?: number },
): Promise<Silence[]> {
  const report = path.join(path.dirname(audio), 'silences.txt');
  const filter = `silencedetect=noise=${opts.noiseDb ?? -35}dB:d=${opts.minSeconds ?? 0.4},ametadata=mode=print:file=${report}`;
  const args = ['-nostdin', '-v', 'error', ...mediaInput(audio), '-af', filter, '-f', 'null', '-'];
  await runTool(ffmpegPath(), args, {
    signal: opts.signal,
    timeoutMs: 60_000 + durationSec * 100,
  });
  const text = await readFile(report, 'utf8').catch(() => '');
  return parseSilences(text, durationSec);
}
