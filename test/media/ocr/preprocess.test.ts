// The enclosed-fill image (light letters held inside a dark outline or box become ink) on small
// synthetic frames: the fill is ink, the open light background and a light gap between two dark
// strokes that reaches the open background stay paper.
import { describe, expect, it } from 'vitest';
import type { GrayFrame } from '../../../src/media/frames.js';
import { lightTextMask } from '../../../src/media/ocr/preprocess.js';

function frame(width: number, height: number, paint: (x: number, y: number) => number): GrayFrame {
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = paint(x, y);
  return { index: 0, timeMs: 0, width, height, data };
}

const inside = (x: number, y: number, x0: number, y0: number, x1: number, y1: number) =>
  x >= x0 && x <= x1 && y >= y0 && y <= y1;

describe('enclosed-fill mask', () => {
  // Light background (220); an outlined bar: dark ring (x 10–25, y 4–15) around a white fill (x 13–22,
  // y 7–12); two dark strokes (x 30–31 and 35–36, y 4–15) with a light gap between them open at both ends.
  const f = frame(48, 20, (x, y) => {
    if (inside(x, y, 13, 7, 22, 12)) return 245;
    if (inside(x, y, 10, 4, 25, 15)) return 10;
    if (inside(x, y, 30, 4, 31, 15) || inside(x, y, 35, 4, 36, 15)) return 10;
    return 220;
  });
  const at = (mask: Uint8Array, scale: number, x: number, y: number) =>
    mask[y * scale * 48 * scale + x * scale];

  for (const scale of [1, 2]) {
    it(`makes the fill ink and leaves the open background paper (scale ${scale})`, () => {
      const mask = lightTextMask(f, scale, 'enclosed');
      expect(mask).toHaveLength(48 * 20 * scale * scale);
      expect(at(mask, scale, 17, 9)).toBe(0);
      expect(at(mask, scale, 14, 11)).toBe(0);
      // Background, the ring itself, and the gap between the strokes (light, held left and right, but
      // reached from the open background above and below).
      expect(at(mask, scale, 3, 3)).toBe(255);
      expect(at(mask, scale, 11, 5)).toBe(255);
      expect(at(mask, scale, 33, 9)).toBe(255);
    });
  }

  it('leaves a fill thinner than a stroke as paper', () => {
    // A one-pixel light line held between dark rows: the rim between an outline and the picture.
    const thin = frame(30, 12, (x, y) => (y === 6 && x > 2 && x < 27 ? 240 : y >= 4 && y <= 8 ? 10 : 0));
    const mask = lightTextMask(thin, 1, 'enclosed');
    expect(mask[6 * 30 + 15]).toBe(255);
  });
});
