// Generates short test videos with ffmpeg (lavfi sources + drawtext) whose on-screen text is known:
// captions at known times in several fonts, colours, positions and styles over moving backgrounds,
// a static logo and a scrolling ticker. OCR tests and the bench score their output against `truth`.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const FONT_DIR = '/usr/share/fonts/truetype/dejavu';
export const FONTS = {
  sans: `${FONT_DIR}/DejaVuSans.ttf`,
  sansBold: `${FONT_DIR}/DejaVuSans-Bold.ttf`,
  serif: `${FONT_DIR}/DejaVuSerif.ttf`,
  serifBold: `${FONT_DIR}/DejaVuSerif-Bold.ttf`,
  mono: `${FONT_DIR}/DejaVuSansMono.ttf`,
  monoBold: `${FONT_DIR}/DejaVuSansMono-Bold.ttf`,
} as const;

export type FontName = keyof typeof FONTS;

export interface DrawnText {
  text: string;
  /** Shown from/until (seconds); absent → the whole video. */
  startSec?: number;
  endSec?: number;
  font?: FontName;
  size?: number;
  /** An ffmpeg colour (`white`, `yellow`, `0x202020`). */
  color?: string;
  /** ffmpeg drawtext expressions (w, h, tw, th, t available). Default: centred near the bottom. */
  x?: string;
  y?: string;
  /** `box`: on an opaque box; `outline`: with a dark border; `plain`: nothing around it. */
  style?: 'box' | 'outline' | 'plain';
  boxColor?: string;
  /** Padding of the box around the text (default 8). */
  boxBorder?: number;
  /** Pixels per second the text moves leftwards, wrapping (a ticker). */
  scrollPxPerSec?: number;
}

export type Background = 'testsrc2' | 'mandelbrot' | 'gradients' | { color: string };

export interface VideoSpec {
  durationSec: number;
  width?: number;
  height?: number;
  fps?: number;
  background: Background;
  texts: DrawnText[];
  /** Add a sine-tone audio track. */
  audio?: boolean;
  /**
   * Seed of the `gradients` background (default 1): its colours and motion. ffmpeg's own defaults
   * are random (colours from the system's random source, whatever the filter's seed), so without
   * this every generation of "the same" spec would be a different picture, read differently.
   */
  seed?: number;
  /** Colours of the `gradients` background (default: two picked by the seed). */
  gradientColours?: [string, string];
  /**
   * The `mandelbrot` background as it is this many seconds into its zoom (default 0): a stretch of
   * a long video's deep zoom, made without rendering everything before it.
   */
  backgroundFromSec?: number;
}

/** A caption the OCR must recover: its text and when it is on screen (ms). */
export interface TruthCaption {
  text: string;
  startMs: number;
  endMs: number;
}

/** Two colours picked by `seed` (a small xorshift generator): the same seed, the same colours. */
export function seededColours(seed: number): [string, string] {
  let x = (seed * 2654435761) >>> 0 || 1;
  const next = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x & 0xffffff;
  };
  const hex = (n: number) => `0x${n.toString(16).padStart(6, '0')}`;
  return [hex(next()), hex(next())];
}

/** The lavfi source of a spec's background, `w`×`h` at `fps` for `dur` seconds. */
function backgroundSource(spec: VideoSpec, w: number, h: number, fps: number, dur: number): string {
  const bg = spec.background;
  if (typeof bg === 'object') return `color=c=${bg.color}:s=${w}x${h}:r=${fps}:d=${dur}`;
  // testsrc2 draws a running timecode in its top-left corner: real text we do not want in the
  // background, so it is rendered taller and cropped below the timecode.
  if (bg === 'testsrc2') return `testsrc2=s=${w}x${h + 80}:r=${fps}:d=${dur},crop=${w}:${h}:0:80`;
  if (bg === 'mandelbrot') {
    // ffmpeg's zoom: scale = start_scale × (end_scale / start_scale)^(frame / end_pts), from 3 to
    // 0.3 over 400 frames; starting later is starting at the scale reached by then.
    const scale = 3 * 0.1 ** (((spec.backgroundFromSec ?? 0) * fps) / 400);
    return `mandelbrot=s=${w}x${h}:r=${fps}:start_scale=${scale}:end_scale=${scale / 10},trim=duration=${dur}`;
  }
  const seed = spec.seed ?? 1;
  const [c0, c1] = spec.gradientColours ?? seededColours(seed);
  return `gradients=s=${w}x${h}:r=${fps}:d=${dur}:speed=0.05:seed=${seed}:c0=${c0}:c1=${c1}`;
}

function drawtext(t: DrawnText, textFile: string): string {
  const style = t.style ?? 'plain';
  const parts = [
    `fontfile=${FONTS[t.font ?? 'sans']}`,
    `textfile=${textFile}`,
    'expansion=none',
    `fontsize=${t.size ?? 28}`,
    `fontcolor=${t.color ?? 'white'}`,
    `x=${t.scrollPxPerSec ? `'w-mod(t*${t.scrollPxPerSec}\\,w+tw)'` : `'${t.x ?? '(w-tw)/2'}'`}`,
    `y='${t.y ?? 'h-th-30'}'`,
  ];
  if (style === 'box')
    parts.push('box=1', `boxcolor=${t.boxColor ?? 'black@0.85'}`, `boxborderw=${t.boxBorder ?? 8}`);
  if (style === 'outline') parts.push('borderw=3', 'bordercolor=black');
  if (t.startSec !== undefined || t.endSec !== undefined) {
    parts.push(`enable='between(t\\,${t.startSec ?? 0}\\,${t.endSec ?? 1e9})'`);
  }
  return `drawtext=${parts.join(':')}`;
}

/** Writes `<dir>/<name>.mp4` (H.264, yuv420p) and returns its path. */
export async function generateVideo(dir: string, name: string, spec: VideoSpec): Promise<string> {
  const { durationSec: dur, width = 640, height = 360, fps = 25 } = spec;
  const filters: string[] = [];
  for (const [i, t] of spec.texts.entries()) {
    const file = path.join(dir, `${name}-text${i}.txt`);
    await writeFile(file, t.text);
    filters.push(drawtext(t, file));
  }
  const graph = [backgroundSource(spec, width, height, fps, dur), ...filters, 'format=yuv420p'].join(',');
  const out = path.join(dir, `${name}.mp4`);
  const args = ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', graph];
  if (spec.audio) args.push('-f', 'lavfi', '-i', `sine=frequency=440:duration=${dur}`);
  args.push('-t', String(dur), '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20');
  if (spec.audio) args.push('-c:a', 'aac', '-shortest');
  args.push(out);
  await run('ffmpeg', args, { timeout: 300_000 });
  return out;
}

/** The timed captions of a spec (texts with a start or an end, not scrolling). */
export function truthOf(spec: VideoSpec): TruthCaption[] {
  return spec.texts
    .filter((t) => !t.scrollPxPerSec && (t.startSec !== undefined || t.endSec !== undefined))
    .map((t) => ({
      text: t.text,
      startMs: Math.round((t.startSec ?? 0) * 1000),
      endMs: Math.round(Math.min(t.endSec ?? spec.durationSec, spec.durationSec) * 1000),
    }));
}

const STYLES: Array<Pick<DrawnText, 'font' | 'color' | 'style' | 'y' | 'size' | 'boxColor'>> = [
  { font: 'sans', color: 'white', style: 'outline', y: 'h-th-30', size: 30 },
  { font: 'serif', color: 'yellow', style: 'box', y: 'h-th-40', size: 28 },
  { font: 'monoBold', color: 'black', style: 'box', boxColor: 'white@0.9', y: '(h-th)/2', size: 26 },
  { font: 'sansBold', color: 'white', style: 'plain', y: '40', size: 30 },
  { font: 'serifBold', color: '0x00ffff', style: 'outline', y: 'h-th-60', size: 32 },
];

const WORDS = [
  'Welcome to the spring sale',
  'Prices start at 49 dollars',
  'Order before Friday noon',
  'Free shipping on all orders',
  'Call our team today',
  'Visit the nearest store',
  'New colours every week',
  'Quality you can trust',
  'Thank you for watching',
  'Subscribe for more videos',
  'Recipe number seven',
  'Mix flour with warm water',
  'Bake for twenty minutes',
  'Serve with fresh berries',
];

/**
 * A long video of captions for the bench: a new caption every `everySec` seconds (shown for most of
 * that time, then a gap with no text), cycling fonts, colours and styles, over a moving background.
 */
export function captionedSpec(
  durationSec: number,
  options: { everySec?: number; background?: Background } = {},
): VideoSpec {
  const every = options.everySec ?? 6;
  const texts: DrawnText[] = [];
  for (let n = 1, t = 1; t + 2 < durationSec; n++, t += every) {
    texts.push(benchCaption(n, t, Math.min(t + every - 1.5, durationSec)));
  }
  return { durationSec, background: options.background ?? 'mandelbrot', texts };
}

/** Caption `n` (from 1) of `captionedSpec`, its words and style, shown from `startSec` to `endSec`. */
export function benchCaption(n: number, startSec: number, endSec: number): DrawnText {
  const style = STYLES[(n - 1) % STYLES.length]!;
  return { ...style, text: `${WORDS[(n - 1) % WORDS.length]!} ${n}`, startSec, endSec };
}

/** The static logo of the bench's video and the tests': top right, on screen all along. */
export const LOGO: DrawnText = {
  text: 'UNFURL TV',
  font: 'sansBold',
  size: 22,
  x: 'w-tw-14',
  y: '12',
  style: 'box',
  boxColor: 'black@0.6',
};

export interface CaptionScore {
  truth: TruthCaption;
  /** The segment that reads most like the caption while it is on screen (null: none). */
  found: { text: string; startMs: number; endMs: number } | null;
  cer: number;
  startErrMs: number;
  endErrMs: number;
}

/** Character error rate: edit distance over the reference length (whitespace collapsed). */
export function cer(reference: string, hypothesis: string): number {
  const ref = [...reference.replace(/\s+/g, ' ').trim()];
  const hyp = [...hypothesis.replace(/\s+/g, ' ').trim()];
  let prev = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const cur = [i];
    for (let j = 1; j <= hyp.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return ref.length === 0 ? hyp.length : prev[hyp.length]! / ref.length;
}

/** Matches each caption with the overlapping segment of lowest CER. */
export function scoreCaptions(
  truth: readonly TruthCaption[],
  segments: ReadonlyArray<{ text: string; startMs: number; endMs: number }>,
): CaptionScore[] {
  return truth.map((t) => {
    const overlapping = segments.filter((s) => s.startMs < t.endMs && s.endMs > t.startMs);
    let best: CaptionScore = { truth: t, found: null, cer: 1, startErrMs: Infinity, endErrMs: Infinity };
    for (const s of overlapping) {
      const c = cer(t.text, s.text);
      if (c < best.cer || (c === best.cer && best.found === null)) {
        best = {
          truth: t,
          found: s,
          cer: c,
          startErrMs: Math.abs(s.startMs - t.startMs),
          endErrMs: Math.abs(s.endMs - t.endMs),
        };
      }
    }
    return best;
  });
}

/**
 * Segments whose text is on screen nowhere: not close to any caption or static text of the spec, and
 * (for tickers) not made of pieces of the ticker's words.
 */
export function inventedSegments(
  spec: VideoSpec,
  segments: ReadonlyArray<{ text: string; startMs: number; endMs: number }>,
): Array<{ text: string; startMs: number; endMs: number }> {
  const fixed = spec.texts.filter((t) => !t.scrollPxPerSec).map((t) => t.text);
  const tickerWords = spec.texts
    .filter((t) => t.scrollPxPerSec)
    .flatMap((t) => t.text.toLowerCase().split(/\s+/));
  const bare = (w: string) => w.replace(/[^\p{L}\p{N}]/gu, '');
  return segments.filter((s) => {
    if (fixed.some((f) => cer(f, s.text) <= 0.3 || (f.includes(s.text) && s.text.length >= 3))) return false;
    const words = s.text.toLowerCase().split(/\s+/).map(bare).filter(Boolean);
    // A ticker reading: every word is a ticker word (one letter misread at most), or — first or last,
    // cut by the frame edge — a piece of one or two letters.
    const fromTicker = words.every(
      (w, i) =>
        tickerWords.some((tw) => tw.includes(w) || cer(bare(tw), w) <= 1 / Math.max(1, bare(tw).length)) ||
        ((i === 0 || i === words.length - 1) && w.length <= 2),
    );
    return !(tickerWords.length > 0 && fromTicker);
  });
}
