// Decides which sampled frames need OCR. Overlaid text (captions, logos, lower thirds) is made of sharp
// edges that stay put while the picture under it moves, so each frame is reduced to its "stable edges":
// edge pixels that are also edges, with about the same brightness, in the previous or the next sampled
// frame. A moving background drops out; a caption that appears, changes or goes changes that map. A
// frame is OCR'd only when its map differs from the map of the last frame that was OCR'd.
//
// Checking both neighbours means a caption counts from its first sampled frame (it is stable with the
// next one) to its last (stable with the previous one); text shown on a single sampled frame only
// (under 2 intervals) is not seen as stable, and is caught only if another change makes that frame OCR'd.
import type { GrayFrame } from '../frames.js';

export interface ChangeOptions {
  /** Width frames are reduced to before comparing (default 320). */
  analysisWidth?: number;
  /** Gradient (0–510) above which a pixel is an edge (default 60). */
  edgeThreshold?: number;
  /** Brightness difference (0–255) within which a pixel is "the same" in two frames (default 14). */
  stableThreshold?: number;
  /** A map differs when more than this share of its edge pixels moved… (default 0.3: moving backgrounds leave 5–20 %, a caption that comes, goes or changes 40 % and more) */
  changedShare?: number;
  /** …and at least this many pixels did, at the analysis width (default 25). */
  minChangedPixels?: number;
}

export interface Small {
  w: number;
  h: number;
  px: Uint8Array;
  edges: Uint8Array;
}

/** Box-filtered reduction to `targetW` wide (integer factor), keeping the aspect ratio. */
function reduce(frame: GrayFrame, targetW: number): { w: number; h: number; px: Uint8Array } {
  const f = Math.max(1, Math.floor(frame.width / targetW));
  const w = Math.floor(frame.width / f);
  const h = Math.floor(frame.height / f);
  const px = new Uint8Array(w * h);
  const area = f * f;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let sum = 0;
      for (let dy = 0; dy < f; dy++) {
        const row = (y * f + dy) * frame.width + x * f;
        for (let dx = 0; dx < f; dx++) sum += frame.data[row + dx]!;
      }
      px[y * w + x] = Math.round(sum / area);
    }
  }
  return { w, h, px };
}

function edgeMap(w: number, h: number, px: Uint8Array, threshold: number): Uint8Array {
  const edges = new Uint8Array(w * h);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const g = Math.abs(px[i + 1]! - px[i - 1]!) + Math.abs(px[i + w]! - px[i - w]!);
      if (g > threshold) edges[i] = 1;
    }
  }
  return edges;
}

/** 3×3 dilation, so a one-pixel wobble (compression noise, scaling) is not a change. */
function dilate(map: Uint8Array, w: number, h: number): Uint8Array {
  const out = new Uint8Array(map.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!map[y * w + x]) continue;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx >= 0 && xx < w) out[yy * w + xx] = 1;
        }
      }
    }
  }
  return out;
}

/** Rows per band when looking for text that scrolls sideways (at the analysis width). */
const BAND = 8;
/** Largest sideways move between two sampled frames looked for (analysis pixels). */
const MAX_SHIFT = 48;

/**
 * The largest sideways move of a band of rows between two frames: a ticker. A band counts when some
 * shift explains it far better than none, and it carries edges (text, not a smooth gradient).
 */
export function tickerShift(prev: Small, cur: Small): number {
  const { w, h } = cur;
  if (prev.px.length !== cur.px.length) return 0;
  let best = 0;
  // Bands overlap by half, the last one flush with the bottom (where tickers run).
  const starts: number[] = [];
  for (let y0 = 0; y0 + BAND <= h; y0 += BAND / 2) starts.push(y0);
  if (h >= BAND) starts.push(h - BAND);
  for (const y0 of starts) {
    let edges = 0;
    for (let y = y0; y < y0 + BAND; y++) for (let x = 0; x < w; x++) edges += cur.edges[y * w + x]!;
    if (edges < w / 4) continue;
    // Pixels that changed in place but match the previous frame moved sideways by `shift`.
    const explained = (shift: number) => {
      let n = 0;
      for (let y = y0; y < y0 + BAND; y++) {
        const row = y * w;
        for (let x = Math.max(0, -shift); x < Math.min(w, w - shift); x += 2) {
          const c = cur.px[row + x]!;
          if (Math.abs(c - prev.px[row + x]!) > 30 && Math.abs(c - prev.px[row + x + shift]!) < 12) n++;
        }
      }
      return n;
    };
    let bestShift = 0;
    let bestCount = 0;
    let total = 0;
    for (let shift = -MAX_SHIFT; shift <= MAX_SHIFT; shift++) {
      if (shift === 0) continue;
      const n = explained(shift);
      total += n;
      if (n > bestCount) {
        bestCount = n;
        bestShift = shift;
      }
    }
    const mean = total / (2 * MAX_SHIFT);
    if (bestCount >= (BAND * w) / 40 && bestCount >= 3 * mean) best = Math.max(best, Math.abs(bestShift));
  }
  return best;
}

export interface FrameVerdict {
  /** The frame this verdict is about (one behind the newest frame pushed). */
  frame: GrayFrame;
  /** True when its text may differ from the last OCR'd frame: OCR it. */
  changed: boolean;
  /** Pixels of its stable-edge map (at the analysis width). */
  stablePixels: number;
  /** Pixels of that map with no counterpart in the last OCR'd frame's map, and back. */
  movedPixels: number;
}

/**
 * Feed frames in order with `push`; each push answers the verdict for the frame before it (it needs
 * the next frame to judge stability), `finish` answers the last one.
 */
export class TextChangeDetector {
  private readonly opts: Required<ChangeOptions>;
  private prev: Small | null = null;
  private cur: { frame: GrayFrame; small: Small } | null = null;
  private reference: { map: Uint8Array; grown: Uint8Array; count: number } | null = null;
  /** How far a ticker has scrolled since the last OCR'd frame (analysis pixels). */
  private scrolled = 0;
  private tickerSpeed = 0;
  private sinceTicker = Number.POSITIVE_INFINITY;

  constructor(options: ChangeOptions = {}) {
    this.opts = {
      analysisWidth: options.analysisWidth ?? 320,
      edgeThreshold: options.edgeThreshold ?? 60,
      stableThreshold: options.stableThreshold ?? 14,
      changedShare: options.changedShare ?? 0.3,
      minChangedPixels: options.minChangedPixels ?? 25,
    };
  }

  push(frame: GrayFrame): FrameVerdict | null {
    const { w, h, px } = reduce(frame, this.opts.analysisWidth);
    const small: Small = { w, h, px, edges: edgeMap(w, h, px, this.opts.edgeThreshold) };
    const verdict = this.cur ? this.judge(this.cur.frame, this.cur.small, this.prev, small) : null;
    this.prev = this.cur?.small ?? null;
    this.cur = { frame, small };
    return verdict;
  }

  finish(): FrameVerdict | null {
    if (!this.cur) return null;
    const verdict = this.judge(this.cur.frame, this.cur.small, this.prev, null);
    this.cur = null;
    this.prev = null;
    return verdict;
  }

  private stableMap(cur: Small, prev: Small | null, next: Small | null): Uint8Array {
    const map = new Uint8Array(cur.px.length);
    const t = this.opts.stableThreshold;
    const sameAs = (o: Small | null, i: number) =>
      o !== null && o.px.length === cur.px.length && o.edges[i] === 1 && Math.abs(o.px[i]! - cur.px[i]!) <= t;
    for (let i = 0; i < map.length; i++) {
      if (cur.edges[i] && (sameAs(prev, i) || sameAs(next, i))) map[i] = 1;
    }
    // A video of one frame has no neighbour: all its edges count.
    if (!prev && !next) map.set(cur.edges);
    return map;
  }

  private judge(frame: GrayFrame, cur: Small, prev: Small | null, next: Small | null): FrameVerdict {
    const map = this.stableMap(cur, prev, next);
    let count = 0;
    for (let i = 0; i < map.length; i++) count += map[i]!;
    const grown = dilate(map, cur.w, cur.h);
    const ref = this.reference;
    let changed = true;
    let moved = count;
    if (ref && ref.map.length === map.length) {
      moved = 0;
      for (let i = 0; i < map.length; i++) {
        if (map[i] && !ref.grown[i]) moved++;
        if (ref.map[i] && !grown[i]) moved++;
      }
      const limit = Math.max(this.opts.minChangedPixels, this.opts.changedShare * Math.max(count, ref.count));
      changed = moved > limit;
    }
    // Scrolling text is never stable, so the map does not see it: read it again each time it has
    // moved on by 40 % of the width (every word is then read whole at least once).
    // A ticker is seen on some frame pairs only (the picture around it moves too): once seen, its
    // speed is assumed to hold for a few frames. Slow sideways drift (under 5 % of the width per
    // frame: pans, zooms) is not taken for a ticker.
    const shift = prev ? tickerShift(prev, cur) : 0;
    if (shift >= cur.w / 20) {
      this.tickerSpeed = shift;
      this.sinceTicker = 0;
    } else this.sinceTicker++;
    if (this.sinceTicker <= 4) this.scrolled += this.tickerSpeed;
    if (this.scrolled >= 0.4 * cur.w) changed = true;
    if (changed) {
      this.reference = { map, grown, count };
      this.scrolled = 0;
    }
    return { frame, changed, stablePixels: count, movedPixels: moved };
  }
}
