// The temporal median behind one OCR reading of a stack of frames: static text is kept exactly, what
// moved is flattened (mid-grey in `calm`, black in `still`).
import { describe, expect, it } from 'vitest';
import type { GrayFrame } from '../../../src/media/frames.js';
import { medianFrame } from '../../../src/media/ocr/stack.js';

const frame = (index: number, values: number[]): GrayFrame => ({
  index,
  timeMs: index * 500,
  width: values.length,
  height: 1,
  data: Uint8Array.from(values),
});

describe('medianFrame', () => {
  it('takes the per-pixel median of three frames and keeps the first one’s index and time', () => {
    // Pixel 0: static text (255 in all); pixel 1: a moving picture; pixel 2: one outlier frame.
    const { median, calm, still } = medianFrame([
      frame(4, [255, 10, 100]),
      frame(5, [255, 200, 100]),
      frame(6, [255, 90, 250]),
    ]);
    expect([...median.data]).toEqual([255, 90, 100]);
    expect(median.index).toBe(4);
    expect(median.timeMs).toBe(2000);
    // Pixels that spanned more than 40 levels moved: mid-grey in calm, black in still.
    expect([...calm.data]).toEqual([255, 128, 128]);
    expect([...still.data]).toEqual([255, 0, 0]);
  });

  it('uses five frames when given five, and one frame as it is when fewer than three', () => {
    const five = medianFrame([1, 2, 3, 4, 5].map((i) => frame(i, [i * 10])));
    expect([...five.median.data]).toEqual([30]);
    const two = medianFrame([frame(1, [7, 8]), frame(2, [9, 9])]);
    expect([...two.median.data]).toEqual([7, 8]);
    expect(two.still).toBe(two.median);
  });

  it('ignores frames of another size', () => {
    const { median } = medianFrame([frame(1, [1, 2]), frame(2, [5]), frame(3, [3, 4])]);
    expect([...median.data]).toEqual([1, 2]);
  });
});
