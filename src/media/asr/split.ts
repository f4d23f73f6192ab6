// Cutting long audio into upload parts: each at most `maxPartSec` long, cut in the middle of the
// latest pause that keeps the part under the limit (so no word is split), else hard at the limit. Pure.
import type { Silence } from './silence.js';

export interface Part {
  startSec: number;
  endSec: number;
}

export function planParts(durationSec: number, silences: readonly Silence[], maxPartSec: number): Part[] {
  if (durationSec <= maxPartSec) return [{ startSec: 0, endSec: durationSec }];
  const parts: Part[] = [];
  let start = 0;
  while (durationSec - start > maxPartSec) {
    const limit = start + maxPartSec;
    // A cut too near the start would make many tiny parts: only pauses in the second half count.
    const cuts = silences
      .map((s) => (s.startSec + Math.min(s.endSec, durationSec)) / 2)
      .filter((mid) => mid > start + maxPartSec / 2 && mid <= limit);
    const cut = cuts.length ? Math.max(...cuts) : limit;
    parts.push({ startSec: start, endSec: cut });
    start = cut;
  }
  parts.push({ startSec: start, endSec: durationSec });
  return parts;
}
