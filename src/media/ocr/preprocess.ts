// What tesseract is shown for each frame. Its own binarisation (one Otsu threshold for the page) loses
// light text over busy or bright colour, which is where captions usually are; so each frame is read
// three times: as it is (grayscale, for dark and coloured text), and as two "light text" masks —
// upscaled when small (small text reads much better at twice the size) and thresholded so that light
// text becomes black ink on white paper. The readings are then merged line by line.
import type { GrayFrame } from '../frames.js';
import type { OcrLine, OcrWord } from './tesseract.js';

export interface OcrImage {
  /** A binary PGM (P5) file's bytes. */
  pgm: Buffer;
  /** Image pixels per frame pixel (to bring boxes back to frame coordinates). */
  scale: number;
}

/** Pixels at or above this brightness count as light text in the mask (above yellow, ≈ 226, so a yellow background stays paper). */
const BRIGHT = 236;
/** A pixel next to a near-white one counts as ink from this brightness (stroke rims). */
const RIM = 170;
/** How much brighter than its surroundings a pixel of outlined or boxed coloured text is. */
const LOCAL_LIFT = 40;

function pgmOf(width: number, height: number, data: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`, 'ascii'), data]);
}

/** Bilinear upscale by an integer factor (source positions and weights computed once per axis). */
export function upscale(frame: GrayFrame, scale: number): Uint8Array {
  const { width: w, height: h, data } = frame;
  if (scale === 1) return data;
  const W = w * scale;
  const H = h * scale;
  const axis = (n: number, size: number) => {
    const lo = new Int32Array(n);
    const hi = new Int32Array(n);
    const f = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const s = Math.min(size - 1, Math.max(0, (i + 0.5) / scale - 0.5));
      lo[i] = Math.floor(s);
      hi[i] = Math.min(size - 1, lo[i]! + 1);
      f[i] = s - lo[i]!;
    }
    return { lo, hi, f };
  };
  const xs = axis(W, w);
  const ys = axis(H, h);
  const out = new Uint8Array(W * H);
  for (let Y = 0; Y < H; Y++) {
    const r0 = ys.lo[Y]! * w;
    const r1 = ys.hi[Y]! * w;
    const fy = ys.f[Y]!;
    for (let X = 0; X < W; X++) {
      const x0 = xs.lo[X]!;
      const x1 = xs.hi[X]!;
      const fx = xs.f[X]!;
      const top = data[r0 + x0]! + (data[r0 + x1]! - data[r0 + x0]!) * fx;
      const bottom = data[r1 + x0]! + (data[r1 + x1]! - data[r1 + x0]!) * fx;
      out[Y * W + X] = (top + (bottom - top) * fy + 0.5) | 0;
    }
  }
  return out;
}

/**
 * Light text as black ink on white paper, upscaled by `scale` first. `bright`: near-white pixels are
 * ink (white captions over anything but white). `lifted`: pixels clearly brighter than their
 * neighbourhood are ink (coloured text with a dark outline or on a dark box).
 */
export function lightTextMask(
  frame: GrayFrame,
  scale: number,
  mode: 'bright' | 'lifted',
  upscaled: Uint8Array = upscale(frame, scale),
): Uint8Array {
  const W = frame.width * scale;
  const H = frame.height * scale;
  const px = upscaled;
  if (mode === 'bright') {
    // Hysteresis: near-white pixels, and their fairly light neighbours — the anti-aliased rim of a
    // stroke — so thin strokes keep their weight; a yellow area away from white stays paper.
    const out = new Uint8Array(W * H).fill(255);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const i = y * W + x;
        const v = px[i]!;
        if (v >= BRIGHT) out[i] = 0;
        else if (
          v >= RIM &&
          ((x > 0 && px[i - 1]! >= BRIGHT) ||
            (x < W - 1 && px[i + 1]! >= BRIGHT) ||
            (y > 0 && px[i - W]! >= BRIGHT) ||
            (y < H - 1 && px[i + W]! >= BRIGHT))
        )
          out[i] = 0;
      }
    }
    return out;
  }
  // Integral image for the local mean over a window about a letter wide.
  const iw = W + 1;
  const integral = new Float64Array(iw * (H + 1));
  for (let y = 0; y < H; y++) {
    let row = 0;
    for (let x = 0; x < W; x++) {
      row += px[y * W + x]!;
      integral[(y + 1) * iw + x + 1] = integral[y * iw + x + 1]! + row;
    }
  }
  const r = 10 * scale;
  const out = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    const y0 = Math.max(0, y - r);
    const y1 = Math.min(H, y + r + 1);
    for (let x = 0; x < W; x++) {
      const x0 = Math.max(0, x - r);
      const x1 = Math.min(W, x + r + 1);
      const sum =
        integral[y1 * iw + x1]! - integral[y0 * iw + x1]! - integral[y1 * iw + x0]! + integral[y0 * iw + x0]!;
      const mean = sum / ((y1 - y0) * (x1 - x0));
      const v = px[y * W + x]!;
      out[y * W + x] = v > 90 && v - mean > LOCAL_LIFT ? 0 : 255;
    }
  }
  return out;
}

/**
 * The images tesseract reads for one frame. `maskSource` (same size) is what the light-text masks are
 * made from when it differs from the frame (a stack of frames with the moving picture blacked out).
 */
export function ocrImages(frame: GrayFrame, maskSource: GrayFrame = frame): OcrImage[] {
  // The size of the video, not of a band cut out of it, decides whether text is small.
  const scale = Math.min(frame.width, frame.height) < 720 && frame.width < 1280 ? 2 : 1;
  const big = upscale(maskSource, scale);
  const W = frame.width * scale;
  const H = frame.height * scale;
  return [
    { pgm: pgmOf(frame.width, frame.height, frame.data), scale: 1 },
    { pgm: pgmOf(W, H, lightTextMask(maskSource, scale, 'bright', big)), scale },
    { pgm: pgmOf(W, H, lightTextMask(maskSource, scale, 'lifted', big)), scale },
  ];
}

function scaleBox<T extends OcrWord>(box: T, scale: number): T {
  // Word boxes inside a line are not used past this point: they are dropped, not rescaled.
  if (scale === 1) return box;
  return {
    ...box,
    words: undefined,
    left: Math.round(box.left / scale),
    top: Math.round(box.top / scale),
    width: Math.round(box.width / scale),
    height: Math.round(box.height / scale),
  };
}

function overlapShare(a: OcrWord, b: OcrWord): number {
  const w = Math.min(a.left + a.width, b.left + b.width) - Math.max(a.left, b.left);
  const h = Math.min(a.top + a.height, b.top + b.height) - Math.max(a.top, b.top);
  if (w <= 0 || h <= 0) return 0;
  return (w * h) / Math.max(1, Math.min(a.width * a.height, b.width * b.height));
}

/** How much was read, and how surely: confident characters. */
const weight = (l: OcrLine) => l.conf * (l.text.match(/[\p{L}\p{N}]/gu)?.length ?? 0);

/**
 * Merges the readings of one frame's images: where lines of two readings cover the same place, the one
 * with more confident characters wins; lines only one reading found are kept; pieces of one line are
 * joined.
 */
export function mergeReadings(
  readings: ReadonlyArray<{ lines: readonly OcrLine[]; scale: number }>,
): OcrLine[] {
  const all = readings.flatMap((r) => r.lines.map((l) => scaleBox(l, r.scale)));
  all.sort((a, b) => weight(b) - weight(a));
  const kept: OcrLine[] = [];
  for (const line of all) {
    const clash = kept.findIndex((k) => overlapShare(k, line) > 0.15);
    if (clash < 0) {
      kept.push(line);
      continue;
    }
    // Two readings of overlapping stretches of one line ("ORDER NOW: call" and "call 555-0199").
    const stitched = stitch(kept[clash]!, line);
    if (stitched) kept[clash] = stitched;
  }
  return joinLines(kept);
}

const bareWord = (w: string) => w.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/**
 * Joins two readings of one row that overlap by whole words (the end of the left one is the start of
 * the right one); null when they do not line up like that.
 */
export function stitch(a: OcrLine, b: OcrLine): OcrLine | null {
  const [left, right] = a.left <= b.left ? [a, b] : [b, a];
  if (right.left + right.width <= left.left + left.width) return null;
  const lw = left.text.split(' ');
  const rw = right.text.split(' ');
  for (let k = Math.min(lw.length, rw.length); k >= 1; k--) {
    const tail = lw.slice(-k).map(bareWord).join(' ');
    const head = rw.slice(0, k).map(bareWord).join(' ');
    if (tail && tail === head) {
      const text = [...lw, ...rw.slice(k)].join(' ');
      const top = Math.min(left.top, right.top);
      const bottom = Math.max(left.top + left.height, right.top + right.height);
      return {
        text,
        conf: Math.min(left.conf, right.conf),
        left: left.left,
        top,
        width: right.left + right.width - left.left,
        height: bottom - top,
      };
    }
  }
  return null;
}

/**
 * Pieces of one line that tesseract returned apart (words far apart, or read on different images)
 * are joined left to right: same band of rows, text of about the same height, a gap under six text
 * heights (a word or two left unread between them).
 */
export function joinLines(lines: readonly OcrLine[]): OcrLine[] {
  const sorted = [...lines].sort((a, b) => a.left - b.left);
  const out: OcrLine[] = [];
  for (const line of sorted) {
    const into = out.find((o) => {
      const v = Math.min(o.top + o.height, line.top + line.height) - Math.max(o.top, line.top);
      const gap = line.left - (o.left + o.width);
      const tall = Math.max(o.height, line.height);
      const similarSize = tall <= 2.5 * Math.min(o.height, line.height);
      return v >= 0.5 * Math.min(o.height, line.height) && similarSize && gap <= 6 * tall && gap > -o.width;
    });
    if (!into) {
      out.push({ ...line });
      continue;
    }
    // A piece that overlaps what is already joined is a second reading of the same words.
    if (line.left < into.left + into.width - 0.5 * into.height) continue;
    const chars = (l: OcrLine) => Math.max(1, l.text.length);
    into.conf = (into.conf * chars(into) + line.conf * chars(line)) / (chars(into) + chars(line));
    into.text = `${into.text} ${line.text}`;
    const right = Math.max(into.left + into.width, line.left + line.width);
    const bottom = Math.max(into.top + into.height, line.top + line.height);
    into.top = Math.min(into.top, line.top);
    into.width = right - into.left;
    into.height = bottom - into.top;
  }
  return out.sort((a, b) => a.top - b.top || a.left - b.left);
}
