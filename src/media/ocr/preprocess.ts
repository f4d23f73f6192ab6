// What tesseract is shown for each frame. Its own binarisation (one Otsu threshold for the page) loses
// light text over busy or bright colour, which is where captions usually are; so each frame is read
// twice: as it is (grayscale, for dark and coloured text), and as a "bright text" mask — upscaled when
// small (small text reads much better at twice the size) and thresholded so that near-white pixels
// become black ink on white paper. The two readings are then merged line by line.
import type { GrayFrame } from '../frames.js';
import type { OcrLine } from './tesseract.js';

export interface OcrImage {
  /** A binary PGM (P5) file's bytes. */
  pgm: Buffer;
  /** Image pixels per frame pixel (to bring boxes back to frame coordinates). */
  scale: number;
}

/** Pixels at or above this brightness count as light text in the mask (above yellow, ≈ 226, so a yellow background stays paper). */
const BRIGHT = 236;

function pgmOf(width: number, height: number, data: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`, 'ascii'), data]);
}

/** Near-white → black, everything else → white, bilinear-upscaled by `scale` first. */
export function brightTextMask(frame: GrayFrame, scale: number): Uint8Array {
  const { width: w, height: h, data } = frame;
  const W = w * scale;
  const H = h * scale;
  const out = new Uint8Array(W * H);
  for (let Y = 0; Y < H; Y++) {
    const sy = Math.min(h - 1, Math.max(0, (Y + 0.5) / scale - 0.5));
    const y0 = Math.floor(sy);
    const y1 = Math.min(h - 1, y0 + 1);
    const fy = sy - y0;
    for (let X = 0; X < W; X++) {
      const sx = Math.min(w - 1, Math.max(0, (X + 0.5) / scale - 0.5));
      const x0 = Math.floor(sx);
      const x1 = Math.min(w - 1, x0 + 1);
      const fx = sx - x0;
      const top = data[y0 * w + x0]! * (1 - fx) + data[y0 * w + x1]! * fx;
      const bottom = data[y1 * w + x0]! * (1 - fx) + data[y1 * w + x1]! * fx;
      out[Y * W + X] = top * (1 - fy) + bottom * fy >= BRIGHT ? 0 : 255;
    }
  }
  return out;
}

/** The images tesseract reads for one frame. */
export function ocrImages(frame: GrayFrame): OcrImage[] {
  const scale = Math.min(frame.width, frame.height) < 720 ? 2 : 1;
  return [
    { pgm: pgmOf(frame.width, frame.height, frame.data), scale: 1 },
    { pgm: pgmOf(frame.width * scale, frame.height * scale, brightTextMask(frame, scale)), scale },
  ];
}

function toFrame(line: OcrLine, scale: number): OcrLine {
  if (scale === 1) return line;
  return {
    ...line,
    left: Math.round(line.left / scale),
    top: Math.round(line.top / scale),
    width: Math.round(line.width / scale),
    height: Math.round(line.height / scale),
  };
}

function overlapShare(a: OcrLine, b: OcrLine): number {
  const w = Math.min(a.left + a.width, b.left + b.width) - Math.max(a.left, b.left);
  const h = Math.min(a.top + a.height, b.top + b.height) - Math.max(a.top, b.top);
  if (w <= 0 || h <= 0) return 0;
  return (w * h) / Math.max(1, Math.min(a.width * a.height, b.width * b.height));
}

/** How much was read, and how surely: confident characters. */
const weight = (l: OcrLine) => l.conf * (l.text.match(/[\p{L}\p{N}]/gu)?.length ?? 0);

/**
 * Merges the readings of one frame's images: where lines of two readings cover the same place, the one
 * with more confident characters wins; lines only one reading found are kept.
 */
export function mergeReadings(
  readings: ReadonlyArray<{ lines: readonly OcrLine[]; scale: number }>,
): OcrLine[] {
  const all = readings.flatMap((r) => r.lines.map((l) => toFrame(l, r.scale)));
  all.sort((a, b) => weight(b) - weight(a));
  const kept: OcrLine[] = [];
  for (const line of all) {
    if (!kept.some((k) => overlapShare(k, line) > 0.3)) kept.push(line);
  }
  return kept.sort((a, b) => a.top - b.top || a.left - b.left);
}
