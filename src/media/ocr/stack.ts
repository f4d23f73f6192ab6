// Overlaid text stays put while the picture under it moves: the per-pixel median of a few sampled
// frames that show the same text keeps the text exactly and smooths the moving background around it
// (a busy texture, a zoom), so one OCR reading of the stack reads about as well as a vote over many
// frames would, for the tesseract cost of one frame.
import type { GrayFrame } from '../frames.js';

/** A pixel whose brightness spans more than this over the stack belongs to the moving picture. */
const MOVING = 40;

/**
 * Per-pixel median of equally sized frames (an odd number of them is used: the first 5, 3 or 1);
 * answers frames with the first one's index and time: the median; `calm`, the median with the pixels
 * that moved set to mid-grey (dark and light text alike then stand out from a flat background); and
 * `still`, with them set to black (the light-text masks are made from it: light text then stands on
 * black whatever moved behind it).
 */
export function medianFrame(frames: readonly GrayFrame[]): {
  median: GrayFrame;
  calm: GrayFrame;
  still: GrayFrame;
} {
  const first = frames[0]!;
  const n = first.data.length;
  const same = frames.filter((f) => f.data.length === n);
  const count = same.length >= 5 ? 5 : same.length >= 3 ? 3 : 1;
  if (count === 1) return { median: first, calm: first, still: first };
  const planes = same.slice(0, count).map((f) => f.data);
  const out = new Uint8Array(n);
  const still = new Uint8Array(n);
  const calm = new Uint8Array(n);
  const v = new Uint8Array(count);
  for (let i = 0; i < n; i++) {
    // Insertion sort of a handful of values.
    for (let k = 0; k < count; k++) {
      const x = planes[k]![i]!;
      let j = k;
      while (j > 0 && v[j - 1]! > x) {
        v[j] = v[j - 1]!;
        j--;
      }
      v[j] = x;
    }
    out[i] = v[count >> 1]!;
    const moving = v[count - 1]! - v[0]! > MOVING;
    still[i] = moving ? 0 : out[i]!;
    calm[i] = moving ? 128 : out[i]!;
  }
  return {
    median: { ...first, data: out },
    calm: { ...first, data: calm },
    still: { ...first, data: still },
  };
}
