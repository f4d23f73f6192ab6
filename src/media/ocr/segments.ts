// Turns the lines read on each sampled frame into timed segments. Each line is followed on its own
// (a caption, a logo and a ticker can be on screen together): a line continues a segment when it reads
// nearly the same (normalised edit distance) as that segment's text on the previous frame; a segment
// survives one frame without its line (a misread), then closes.
import type { OcrLine } from './tesseract.js';
import { similarity } from './text-similarity.js';

export interface OcrSegment {
  text: string;
  startMs: number;
  endMs: number;
}

export interface SegmentOptions {
  /** Time between sampled frames (ms). */
  intervalMs: number;
  /** Length of the video (ms), the upper bound of every end. */
  durationMs: number;
  /** Two readings are the same text above this similarity (default 0.8). */
  minSimilarity?: number;
  /** Frames a segment may miss its line and still continue (default 1). */
  maxGapFrames?: number;
}

interface Open {
  firstFrame: number;
  lastFrame: number;
  /** Last text seen (compared with the next frame's lines). */
  latest: string;
  /** Each reading and how much weight it has (frames × confidence). */
  readings: Map<string, number>;
}

function bestReading(readings: Map<string, number>): string {
  let best = '';
  let weight = -1;
  for (const [text, w] of readings) {
    if (w > weight) {
      best = text;
      weight = w;
    }
  }
  return best;
}

/**
 * `frames[i]` are the lines of sampled frame i (time i × interval). A segment spans from half an
 * interval before its first frame to half an interval after its last, so either boundary is within
 * half an interval of the truth; its text is the reading with the most weight.
 */
export function buildSegments(
  frames: readonly (readonly OcrLine[])[],
  options: SegmentOptions,
): OcrSegment[] {
  const minSim = options.minSimilarity ?? 0.8;
  const maxGap = options.maxGapFrames ?? 1;
  const half = options.intervalMs / 2;
  const open: Open[] = [];
  const closed: Open[] = [];
  frames.forEach((lines, f) => {
    const taken = new Set<Open>();
    for (const line of lines) {
      let match: Open | null = null;
      let score = minSim;
      for (const seg of open) {
        if (taken.has(seg)) continue;
        const s = similarity(seg.latest, line.text);
        if (s >= score) {
          match = seg;
          score = s;
        }
      }
      const weight = Math.max(1, line.conf);
      if (match) {
        match.lastFrame = f;
        match.latest = line.text;
        match.readings.set(line.text, (match.readings.get(line.text) ?? 0) + weight);
        taken.add(match);
      } else {
        const seg: Open = {
          firstFrame: f,
          lastFrame: f,
          latest: line.text,
          readings: new Map([[line.text, weight]]),
        };
        open.push(seg);
        taken.add(seg);
      }
    }
    for (let i = open.length - 1; i >= 0; i--) {
      if (f - open[i]!.lastFrame > maxGap) closed.push(...open.splice(i, 1));
    }
  });
  closed.push(...open);
  return closed
    .map((seg) => ({
      text: bestReading(seg.readings),
      startMs: Math.max(0, Math.round(seg.firstFrame * options.intervalMs - half)),
      endMs: Math.min(options.durationMs, Math.round(seg.lastFrame * options.intervalMs + half)),
    }))
    .filter((s) => s.endMs > s.startMs)
    .sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
}
