// What tesseract is shown for each frame. Its own binarisation (one Otsu threshold for the page) loses
// light text over busy or bright colour, which is where captions usually are; so each frame is read
// three times: as it is (grayscale, for dark and coloured text), and as two "light text" masks —
// upscaled when small (small text reads much better at twice the size) and thresholded so that light
// text becomes black ink on white paper. The readings are then merged (merge.ts).
import type { GrayFrame } from '../frames.js';

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
  mode: 'bright' | 'lifted' | 'enclosed',
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
  if (mode === 'enclosed') return enclosedMask(px, W, H, scale);
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

/** A pixel this dark or darker is an outline, a box or (in a stack) the moving picture. */
const DARK = 60;
/** How much lighter than that the fill of a letter is. */
const FILL_LIFT = 70;
/** Farthest a letter's edge may be from a point of its fill, per side (frame pixels): half a stroke and more. */
const ENCLOSED_REACH = 6;
/** Thinnest stroke (frame pixels) that counts as one. */
const MIN_STROKE = 2;

/**
 * Walking `count` pixels from `start` by `step` (one row or column, either way), each pixel's distance
 * to the last dark pixel passed, capped at `far`.
 */
function darkDistances(
  px: Uint8Array,
  out: Uint8Array,
  start: number,
  step: number,
  count: number,
  far: number,
): void {
  let d = far;
  for (let k = 0, i = start; k < count; k++, i += step) {
    d = px[i]! <= DARK ? 0 : Math.min(far, d + 1);
    out[i] = d;
  }
}

/**
 * Light pixels held between dark ones within a stroke's width — left and right, or above and below:
 * the fill of outlined letters, of letters on a dark box, and (in a stack, where the moving picture is
 * black) of light letters over a moving picture, as black ink on white. A light area wider than a
 * stroke (a bright patch of the picture that stood still) is not held and stays paper.
 */
function enclosedMask(px: Uint8Array, W: number, H: number, scale: number): Uint8Array {
  const reach = ENCLOSED_REACH * scale;
  const fill = DARK + FILL_LIFT;
  // Distance to the nearest dark pixel in each of the four directions, capped at reach + 1.
  const far = reach + 1;
  const left = new Uint8Array(W * H);
  const right = new Uint8Array(W * H);
  const up = new Uint8Array(W * H);
  const down = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    darkDistances(px, left, y * W, 1, W, far);
    darkDistances(px, right, y * W + W - 1, -1, W, far);
  }
  for (let x = 0; x < W; x++) {
    darkDistances(px, up, x, W, H, far);
    darkDistances(px, down, (H - 1) * W + x, -W, H, far);
  }
  // Runs of fill pixels across and down: a stroke is at least MIN_STROKE thick both ways; the thin
  // rim between an outline and the picture is not.
  const minRun = MIN_STROKE * scale;
  const across = runLengths(px, W, H, fill, 1, W);
  const downRun = runLengths(px, H, W, fill, W, 1);
  const outside = openBackground(px, W, H);
  const out = new Uint8Array(W * H).fill(255);
  for (let i = 0; i < out.length; i++) {
    if (px[i]! < fill || outside[i] || across[i]! < minRun || downRun[i]! < minRun) continue;
    if ((left[i]! <= reach && right[i]! <= reach) || (up[i]! <= reach && down[i]! <= reach)) out[i] = 0;
  }
  return out;
}

/**
 * The pixels not dark that the image's border reaches without crossing a dark one (4-connected): the
 * open background. The fill of an outlined letter is closed off by its outline and is not reached,
 * so light text on a light picture keeps its letters apart from the light gaps between them.
 */
function openBackground(px: Uint8Array, W: number, H: number): Uint8Array {
  const seen = new Uint8Array(W * H);
  const stack = new Int32Array(W * H);
  let top = 0;
  const visit = (i: number) => {
    if (seen[i] || px[i]! <= DARK) return;
    seen[i] = 1;
    stack[top++] = i;
  };
  for (let x = 0; x < W; x++) {
    visit(x);
    visit((H - 1) * W + x);
  }
  for (let y = 0; y < H; y++) {
    visit(y * W);
    visit(y * W + W - 1);
  }
  while (top > 0) {
    const i = stack[--top]!;
    const x = i % W;
    if (x > 0) visit(i - 1);
    if (x < W - 1) visit(i + 1);
    if (i >= W) visit(i - W);
    if (i < (H - 1) * W) visit(i + W);
  }
  return seen;
}

/**
 * For every pixel at or above `min`, the length of the run of such pixels it belongs to along one
 * axis: `lines` lines of `length` pixels, `step` between neighbours, `stride` between lines.
 */
function runLengths(
  px: Uint8Array,
  lines: number,
  length: number,
  min: number,
  stride: number,
  step: number,
): Uint16Array {
  const out = new Uint16Array(px.length);
  for (let l = 0; l < lines; l++) {
    const base = l * stride;
    let start = 0;
    for (let k = 0; k <= length; k++) {
      const on = k < length && px[base + k * step]! >= min;
      if (on) continue;
      for (let j = start; j < k; j++) out[base + j * step] = k - start;
      start = k + 1;
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
    { pgm: pgmOf(W, H, lightTextMask(maskSource, scale, 'enclosed', big)), scale },
  ];
}
