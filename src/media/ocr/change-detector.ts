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
  // Bands side by side, plus one flush with the bottom (where tickers run).
  const starts: number[] = [];
  for (let y0 = 0; y0 + BAND <= h; y0 += BAND) starts.push(y0);
  if (h >= BAND && h % BAND !== 0) starts.push(h - BAND);
  // Sampled: every other row and column of a band; shifts by 2, then refined.
  const rows = (y0: number) => [y0, y0 + 2, y0 + 4, y0 + 6];
  for (const y0 of starts) {
    let edges = 0;
    let movedInPlace = 0;
    for (const y of rows(y0)) {
      for (let x = 0; x < w; x += 2) {
        const i = y * w + x;
        edges += cur.edges[i]!;
        if (Math.abs(cur.px[i]! - prev.px[i]!) > 30) movedInPlace++;
      }
    }
    const samples = 4 * Math.ceil(w / 2);
    // Text needs edges; a band that did not change in place did not scroll.
    if (edges < samples / 16 || movedInPlace < samples / 20) continue;
    // Pixels that changed in place but match the previous frame moved sideways by `shift`.
    const explained = (shift: number) => {
      let n = 0;
      for (const y of rows(y0)) {
        const row = y * w;
        const from = Math.max(0, -shift);
        const to = Math.min(w, w - shift);
        for (let x = from; x < to; x += 2) {
          const c = cur.px[row + x]!;
          if (Math.abs(c - prev.px[row + x]!) > 30 && Math.abs(c - prev.px[row + x + shift]!) < 12) n++;
        }
      }
      return n;
    };
    let bestShift = 0;
    let bestCount = 0;
    let total = 0;
    let tried = 0;
    for (let shift = -MAX_SHIFT; shift <= MAX_SHIFT; shift += 2) {
      if (shift === 0) continue;
      const n = explained(shift);
      total += n;
      tried++;
      if (n > bestCount) {
        bestCount = n;
        bestShift = shift;
      }
    }
    for (const shift of [bestShift - 1, bestShift + 1]) {
      const n = shift === 0 ? 0 : explained(shift);
      if (n > bestCount) {
        bestCount = n;
        bestShift = shift;
      }
    }
    const mean = total / Math.max(1, tried);
    // At the end of the search range the best shift is only the least bad one: no ticker.
    const atEdge = Math.abs(bestShift) >= MAX_SHIFT - 1;
    if (!atEdge && bestCount >= samples / 32 && bestCount >= 3 * mean)
      best = Math.max(best, Math.abs(bestShift));
  }
  return best;
}

/** Rows with fewer new stable-edge pixels than this are texture, not text (analysis pixels). */
const BAND_ROW_MIN = 3;
/** …nor fewer than this share of the densest row's. */
const BAND_ROW_SHARE = 0.3;
/** Analysis rows added above and below the band (strokes' soft ends, accents, descenders). */
const BAND_PAD = 6;

/**
 * The rows where many edges appeared (or went), in frame pixels at `factor` frame pixels per analysis
 * pixel; null when they span most of the frame.
 */
function denseBand(rows: Uint16Array, h: number, factor: number): { top: number; height: number } | null {
  // Text rows are dense with new edges; a moving picture leaves a sparse scatter over every row.
  let most = 0;
  for (let y = 0; y < h; y++) most = Math.max(most, rows[y]!);
  const min = Math.max(BAND_ROW_MIN, BAND_ROW_SHARE * most);
  let y0 = -1;
  let y1 = -1;
  for (let y = 0; y < h; y++) {
    if (rows[y]! < min) continue;
    if (y0 < 0) y0 = y;
    y1 = y;
  }
  if (y0 < 0) return null;
  const top = Math.max(0, y0 - BAND_PAD);
  const bottom = Math.min(h, y1 + 1 + BAND_PAD);
  if (bottom - top > 0.5 * h) return null;
  return { top: Math.round(top * factor), height: Math.round((bottom - top) * factor) };
}

/** An appearing change must move at least this share of the map more than the frame before did. */
const SUDDEN_SHARE = 0.15;
/** A change is a removal when at most this share of the moved pixels are new (the rest vanished). */
const REMOVAL_SHARE = 0.3;

export interface FrameVerdict {
  /** The frame this verdict is about (one behind the newest frame pushed). */
  frame: GrayFrame;
  /** True when its text may differ from the last OCR'd frame: OCR it. */
  changed: boolean;
  /** Pixels of its stable-edge map (at the analysis width). */
  stablePixels: number;
  /** Pixels of that map with no counterpart in the last OCR'd frame's map, and back. */
  movedPixels: number;
  /**
   * The change only took text away (what is there now was there before): the reading can be derived
   * from the previous one with `stillShown` instead of OCR. False when something appeared, or when a
   * ticker moved on.
   */
  removalOnly: boolean;
  /** A ticker was seen lately: text is scrolling, so frames cannot be stacked over time. */
  scrolling: boolean;
  /**
   * Rows (frame pixels) where new text appeared, padded; null when the whole frame must be read (no
   * earlier reading, a ticker, or changes spread over most of the frame). Lines of the previous reading
   * outside the band that are still shown carry over.
   */
  band: { top: number; height: number } | null;
  /** Whether a line the previous reading found (box in frame pixels) is still on screen. */
  stillShown(box: { left: number; top: number; width: number; height: number }): boolean;
}

/**
 * Feed frames in order with `push`; each push answers the verdict for the frame before it (it needs
 * the next frame to judge stability), `finish` answers the last one.
 */
export class TextChangeDetector {
  private readonly opts: Required<ChangeOptions>;
  private prev: Small | null = null;
  private cur: { frame: GrayFrame; small: Small } | null = null;
  private reference: { map: Uint8Array; grown: Uint8Array; count: number; px: Uint8Array } | null = null;
  /** How far a ticker has scrolled since the last OCR'd frame (analysis pixels). */
  private scrolled = 0;
  private tickerSpeed = 0;
  /** What the previous frame moved against the same reference. */
  private lastMoved = 0;
  /** Running mean of how much more each unchanged frame moved than the one before (drift per frame). */
  private drift = 0;
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
    let appeared = count;
    const rowsAppeared = new Uint16Array(cur.h);
    const rowsVanished = new Uint16Array(cur.h);
    if (ref && ref.map.length === map.length) {
      moved = 0;
      appeared = 0;
      for (let i = 0; i < map.length; i++) {
        if (map[i] && !ref.grown[i]) {
          appeared++;
          const row = (i / cur.w) | 0;
          rowsAppeared[row] = rowsAppeared[row]! + 1;
        }
        if (ref.map[i] && !grown[i]) {
          moved++;
          const row = (i / cur.w) | 0;
          rowsVanished[row] = rowsVanished[row]! + 1;
        }
      }
      moved += appeared;
      const limit = Math.max(this.opts.minChangedPixels, this.opts.changedShare * Math.max(count, ref.count));
      changed = moved > limit;
      // A change that needs OCR (something appeared) must also be sudden: a moving background's edges
      // drift away from the reference a little each frame (a fractal's slow zoom) until the total
      // passes the limit; text appears from one sampled frame to the next. Removals are cheap (no
      // OCR) and always taken.
      const removal = appeared <= REMOVAL_SHARE * moved;
      const jump = moved - this.lastMoved;
      const sudden =
        jump >
        Math.max(this.opts.minChangedPixels, SUDDEN_SHARE * Math.max(count, ref.count), 3 * this.drift);
      // Nor is a change confined to a few rows taken for drift: a caption coming or going while the
      // background's drift hides it in the totals (drift moves edges in rows all over the frame). A
      // change this large is taken however it came (nothing is carried over for long).
      const local = () =>
        denseBand(rowsAppeared, cur.h, 1) !== null || denseBand(rowsVanished, cur.h, 1) !== null;
      if (changed && !removal && !sudden && moved <= 2 * limit && !local()) changed = false;
      if (!changed) this.drift += 0.3 * (Math.max(0, jump) - this.drift);
      this.lastMoved = moved;
    }
    const textChanged = changed;
    // Scrolling text is never stable, so the map does not see it: read it again each time it has
    // moved on by 40 % of the width (every word is then read whole at least once).
    // A ticker is seen on some frame pairs only (the picture around it moves too): once seen, its
    // speed is assumed to hold for a few frames. Slower sideways motion (under 1/12 of the width per
    // sampled frame, i.e. 1/6 of it per second at 2 fps: pans, zooms, drifting texture) is not taken
    // for a ticker; slower tickers are read when something else makes a frame OCR'd.
    const shift = prev ? tickerShift(prev, cur) : 0;
    if (shift >= cur.w / 12) {
      this.tickerSpeed = shift;
      this.sinceTicker = 0;
    } else this.sinceTicker++;
    if (this.sinceTicker <= 4) this.scrolled += this.tickerSpeed;
    const forcedByTicker = this.scrolled >= 0.4 * cur.w;
    if (forcedByTicker) changed = true;
    const before = ref;
    const factor = frame.width / cur.w;
    const removalOnly =
      textChanged && !forcedByTicker && before !== null && appeared <= REMOVAL_SHARE * moved;
    if (changed) {
      this.reference = { map, grown, count, px: cur.px };
      this.scrolled = 0;
      this.lastMoved = 0;
    }
    const stillShown = (box: { left: number; top: number; width: number; height: number }) => {
      if (!before) return true;
      const x0 = Math.max(0, Math.floor(box.left / factor));
      const x1 = Math.min(cur.w, Math.ceil((box.left + box.width) / factor));
      const y0 = Math.max(0, Math.floor(box.top / factor));
      const y1 = Math.min(cur.h, Math.ceil((box.top + box.height) / factor));
      // Its own edges still there, as bright as they were — not just any edges: the textured
      // picture behind a caption that left fills its box with edges of its own.
      const same = 2 * this.opts.stableThreshold;
      let had = 0;
      let has = 0;
      for (let y = y0; y < y1; y++) {
        for (let x = x0; x < x1; x++) {
          const i = y * cur.w + x;
          if (!before.map[i]) continue;
          had++;
          if (grown[i] && Math.abs(cur.px[i]! - before.px[i]!) <= same) has++;
        }
      }
      // A line that left no stable edges (a ticker) cannot be judged this way: kept.
      return had === 0 || has >= 0.5 * had;
    };
    const scrolling = this.sinceTicker <= 4;
    const band = before && !scrolling ? denseBand(rowsAppeared, cur.h, factor) : null;
    return {
      frame,
      changed,
      stablePixels: count,
      movedPixels: moved,
      removalOnly,
      scrolling,
      band,
      stillShown,
    };
  }
}
