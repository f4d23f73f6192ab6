// Turns the lines read on each sampled frame into timed segments. Each line is followed on its own
// (a caption, a logo and a ticker can be on screen together): a line continues a segment when it reads
// nearly the same (normalised edit distance) as that segment's text on the previous frame; a segment
// survives one frame without its line (a misread), then closes.
import type { OcrLine } from './tesseract.js';
import { editDistance, similarity } from './text-similarity.js';

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
  /** Where it was last seen. */
  box: OcrLine;
  /** Each reading and how much weight it has (frames × confidence). */
  readings: Map<string, number>;
}

const alnumCount = (text: string) => text.match(/[\p{L}\p{N}]/gu)?.length ?? 0;

const bareWords = (text: string) =>
  text
    .toLowerCase()
    .split(' ')
    .map((w) => w.replace(/[^\p{L}\p{N}]/gu, ''))
    .filter(Boolean);

/** The words of `part` appear in `whole` in the same order (a partial reading of the same line). */
function wordsWithin(part: string, whole: string): boolean {
  const words = bareWords(whole);
  let at = 0;
  for (const w of bareWords(part)) {
    const found = words.indexOf(w, at);
    if (found < 0) return false;
    at = found + 1;
  }
  return true;
}

function union(a: OcrLine, b: OcrLine): OcrLine {
  const left = Math.min(a.left, b.left);
  const top = Math.min(a.top, b.top);
  const right = Math.max(a.left + a.width, b.left + b.width);
  const bottom = Math.max(a.top + a.height, b.top + b.height);
  return { ...b, left, top, width: right - left, height: bottom - top };
}

function sameSpot(a: OcrLine, b: OcrLine): boolean {
  const w = Math.min(a.left + a.width, b.left + b.width) - Math.max(a.left, b.left);
  const h = Math.min(a.top + a.height, b.top + b.height) - Math.max(a.top, b.top);
  return w > 0 && h > 0.5 * Math.min(a.height, b.height);
}

/** A reading in the same spot whose letters are mostly in words of the segment's text continues it ("3 UNFURL" for "UNFURL TV": a stray mark read beside it). */
const SHARED_SHARE = 0.6;

/**
 * How well `line` continues `seg` (0: it does not): nearly the same text anywhere, or — in the same
 * spot — a partial or slightly misread version of it. A different caption in the same spot shares
 * little text and starts a new segment.
 */
function continuation(seg: Open, line: OcrLine, minSim: number): number {
  const sim = similarity(seg.latest, line.text);
  if (sim >= minSim) return sim;
  if (!sameSpot(seg.box, line)) return 0;
  if (sim >= 0.5) return sim;
  const a = seg.latest;
  const b = line.text;
  const shorter = a.length <= b.length ? a : b;
  const longer = shorter === a ? b : a;
  if (alnumCount(shorter) < 3) return 0;
  return wordsWithin(shorter, longer) || sharedLetters(shorter, longer) >= SHARED_SHARE ? 0.5 : 0;
}

/** Share of the letters of `part` in words that `whole` has too (any order). */
function sharedLetters(part: string, whole: string): number {
  const words = new Set(bareWords(whole));
  let shared = 0;
  for (const w of bareWords(part)) if (words.has(w)) shared += w.length;
  return shared / Math.max(1, alnumCount(part));
}

/** What a character that a partial reading lacks costs, against one read differently. */
const PARTIAL_COST = 0.5;

/**
 * The reading closest to all the others (weighted medoid by edit distance): one frame's misread
 * characters are outvoted by the frames that read them right, and partial readings (some words
 * missed) count for the fuller reading they are part of.
 */
function bestReading(readings: Map<string, number>): string {
  let best = '';
  let bestCost = Number.POSITIVE_INFINITY;
  for (const candidate of readings.keys()) {
    let cost = 0;
    for (const [other, w] of readings) {
      // A reading whose words all appear, in order, in the candidate is explained by it (read partly):
      // it counts against the candidate's extra characters at half weight, so a stray mark read once
      // beside a logo read a hundred times without it ("4 UNFURL TV") does not win.
      const partial = wordsWithin(other, candidate) ? PARTIAL_COST : 1;
      cost += partial * w * editDistance(candidate.toLowerCase(), other.toLowerCase());
    }
    if (cost < bestCost || (cost === bestCost && candidate.length > best.length)) {
      best = candidate;
      bestCost = cost;
    }
  }
  return best;
}

/**
 * `frames[i]` are the lines of sampled frame i. ffmpeg's fps filter gives output frame i the last
 * input frame before (i + ½) × interval, so a caption on screen from a to b is on frames i with
 * a ≤ (i + ½)·interval ≤ b: the segment runs from its first frame × interval to (last frame + 1) ×
 * interval, each boundary within half an interval of the truth.
 */
export function buildSegments(
  frames: readonly (readonly OcrLine[])[],
  options: SegmentOptions,
): OcrSegment[] {
  const minSim = options.minSimilarity ?? 0.8;
  const maxGap = options.maxGapFrames ?? 1;
  const open: Open[] = [];
  const closed: Open[] = [];
  frames.forEach((lines, f) => {
    const taken = new Set<Open>();
    for (const line of lines) {
      let match: Open | null = null;
      let score = 0;
      for (const seg of open) {
        if (taken.has(seg)) continue;
        const sc = continuation(seg, line, minSim);
        if (sc > score) {
          match = seg;
          score = sc;
        }
      }
      const weight = Math.max(1, line.conf);
      if (match) {
        match.lastFrame = f;
        match.latest = line.text;
        match.box = union(match.box, line);
        match.readings.set(line.text, (match.readings.get(line.text) ?? 0) + weight);
        taken.add(match);
        continue;
      }
      // Another piece of a line already continued on this frame (tesseract split it in two).
      const pieceOf = [...taken].find(
        (seg) => sameSpot(seg.box, line) && [...seg.readings.keys()].some((r) => wordsWithin(line.text, r)),
      );
      if (pieceOf) continue;
      const seg: Open = {
        firstFrame: f,
        lastFrame: f,
        latest: line.text,
        box: line,
        readings: new Map([[line.text, weight]]),
      };
      open.push(seg);
      taken.add(seg);
    }
    for (let i = open.length - 1; i >= 0; i--) {
      if (f - open[i]!.lastFrame > maxGap) closed.push(...open.splice(i, 1));
    }
  });
  closed.push(...open);
  return closed
    .filter((seg) => seg.lastFrame > seg.firstFrame || alnumCount(bestReading(seg.readings)) >= 4)
    .map((seg) => ({
      text: bestReading(seg.readings),
      startMs: Math.max(0, Math.round(seg.firstFrame * options.intervalMs)),
      endMs: Math.min(options.durationMs, Math.round((seg.lastFrame + 1) * options.intervalMs)),
    }))
    .filter((s) => s.endMs > s.startMs)
    .sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
}
