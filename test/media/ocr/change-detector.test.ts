// The change detector on made-up frames whose right answer is known: whether a line read earlier is
// still on screen once the picture behind it has changed.
import { describe, expect, it } from 'vitest';
import type { GrayFrame } from '../../../src/media/frames.js';
import { type FrameVerdict, TextChangeDetector } from '../../../src/media/ocr/change-detector.js';

const W = 320;
const H = 180;
/** The caption's box (frame pixels; the analysis width is the frame's, so one analysis pixel each). */
const BOX = { left: 60, top: 120, width: 200, height: 20 };

/** A picture of fine texture (`seed` picks it), with the caption — black and white bars — or not. */
function frame(index: number, seed: number, caption: boolean): GrayFrame {
  const data = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      // A checkerboard of 2-pixel cells, its two shades set by the seed: edges everywhere.
      const cell = ((x >> 1) + (y >> 1) + seed) & 1;
      data[y * W + x] = cell ? 90 + 20 * seed : 170 - 20 * seed;
    }
  }
  if (caption) {
    for (let y = BOX.top; y < BOX.top + BOX.height; y++) {
      for (let x = BOX.left; x < BOX.left + BOX.width; x++) data[y * W + x] = (x >> 2) & 1 ? 255 : 0;
    }
  }
  return { index, timeMs: index * 500, width: W, height: H, data };
}

function verdicts(frames: GrayFrame[]): FrameVerdict[] {
  const detector = new TextChangeDetector();
  const out = frames.map((f) => detector.push(f)).filter((v): v is FrameVerdict => v !== null);
  const last = detector.finish();
  return last ? [...out, last] : out;
}

describe('TextChangeDetector', () => {
  it('a caption that left is no longer shown, though the new picture fills its box with edges', () => {
    const vs = verdicts([
      frame(0, 0, true),
      frame(1, 0, true),
      frame(2, 0, true),
      frame(3, 1, false),
      frame(4, 1, false),
      frame(5, 1, false),
    ]);
    // Judged against the reading of frame 0 (the last frame OCR'd).
    expect(vs[0]!.changed).toBe(true);
    expect(vs[3]!.stillShown(BOX)).toBe(false);
  });

  it('a caption that stays is still shown when the picture behind it changes', () => {
    const vs = verdicts([
      frame(0, 0, true),
      frame(1, 0, true),
      frame(2, 0, true),
      frame(3, 1, true),
      frame(4, 1, true),
      frame(5, 1, true),
    ]);
    expect(vs[3]!.stillShown(BOX)).toBe(true);
  });
});
