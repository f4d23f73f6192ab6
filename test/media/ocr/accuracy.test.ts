// OCR accuracy on videos generated here with known on-screen text (real ffmpeg, real Tesseract):
// captions in several fonts, colours, positions and styles (boxed, outlined, plain) over moving
// backgrounds, a static logo, a scrolling ticker. Every caption must be read with CER ≤ 5 % and its
// boundaries must land within one sampling interval + 100 ms of the truth; the ticker's words must be
// found; no segment may carry text that is not on screen. The static logo is on-screen text too: it
// is expected as one segment spanning the whole video.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ocrVideo, type VideoOcrResult } from '../../../src/media/ocr/video-ocr.js';
import {
  benchCaption,
  cer,
  generateVideo,
  inventedSegments,
  LOGO,
  scoreCaptions,
  truthOf,
  type VideoSpec,
} from '../../support/videos.js';

const FPS = 2;
const TOLERANCE_MS = 1000 / FPS + 100;

const captionsAndLogo: VideoSpec = {
  durationSec: 20,
  background: 'mandelbrot',
  texts: [
    { text: 'The quick brown fox jumps', startSec: 1, endSec: 4, font: 'sans', style: 'outline', size: 30 },
    {
      text: 'Price 49.99 USD today',
      startSec: 5.2,
      endSec: 8.5,
      font: 'serif',
      style: 'box',
      color: 'yellow',
    },
    {
      text: 'ORDER NOW: call 555-0199',
      startSec: 9.5,
      endSec: 12.6,
      font: 'monoBold',
      style: 'box',
      color: 'black',
      boxColor: 'white',
      boxBorder: 14,
      y: '(h-th)/2',
      size: 26,
    },
    {
      text: 'Chapter two begins',
      startSec: 13.4,
      endSec: 16.3,
      font: 'sansBold',
      style: 'plain',
      y: '60',
      size: 32,
    },
    {
      text: 'See you next week',
      startSec: 17,
      endSec: 19.5,
      font: 'serifBold',
      style: 'outline',
      color: '0x00ffff',
      size: 32,
    },
    // The static logo, on screen all along.
    LOGO,
  ],
};

const TICKER = 'Markets rise as rain continues in the north and trains run late';

const captionsAndTicker: VideoSpec = {
  durationSec: 20,
  background: 'testsrc2',
  texts: [
    { text: 'Welcome to the morning show', startSec: 0.6, endSec: 5, style: 'box', y: 'h-th-50' },
    {
      text: 'Weather: sunny and warm',
      startSec: 6,
      endSec: 10.3,
      font: 'serifBold',
      style: 'outline',
      size: 30,
      y: 'h-th-50',
    },
    // Replaced in place, no gap.
    {
      text: 'Traffic is light downtown',
      startSec: 10.3,
      endSec: 14.8,
      font: 'mono',
      style: 'box',
      color: 'yellow',
      size: 26,
      y: 'h-th-50',
    },
    {
      text: 'Back after the break',
      startSec: 16,
      endSec: 19,
      font: 'sansBold',
      style: 'plain',
      size: 30,
      y: '50',
    },
    { text: TICKER, scrollPxPerSec: 140, y: 'h-th-6', size: 20, style: 'box', boxColor: '0x102060' },
  ],
};

// Stretches of the bench's 5-minute fractal zoom, where the picture's edges drift so much from frame
// to frame that a caption coming or going is a small part of what changed: text that appeared or
// went in a few rows is still a change (it was seen one to two seconds late before).
const zoomAt100s: VideoSpec = {
  durationSec: 16,
  fps: 10,
  background: 'mandelbrot',
  backgroundFromSec: 100,
  texts: [benchCaption(19, 9, 13.5), LOGO],
};
const zoomAt280s: VideoSpec = {
  durationSec: 16,
  fps: 10,
  background: 'mandelbrot',
  backgroundFromSec: 280,
  texts: [benchCaption(48, 3, 7.5), benchCaption(49, 9, 13.5), LOGO],
};

let dir: string;
const results = new Map<string, VideoOcrResult>();

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'ocr-accuracy-'));
  for (const [name, spec] of Object.entries({ captionsAndLogo, captionsAndTicker, zoomAt100s, zoomAt280s })) {
    const file = await generateVideo(dir, name, spec);
    const scratchDir = await mkdtemp(path.join(dir, `${name}-scratch-`));
    results.set(name, await ocrVideo(file, { scratchDir, fps: FPS }));
  }
}, 480_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function expectCaptionsRead(spec: VideoSpec, result: VideoOcrResult) {
  for (const score of scoreCaptions(truthOf(spec), result.segments)) {
    const what = `${score.truth.text} → ${JSON.stringify(score.found)}`;
    expect(score.cer, what).toBeLessThanOrEqual(0.05);
    expect(score.startErrMs, what).toBeLessThanOrEqual(TOLERANCE_MS);
    expect(score.endErrMs, what).toBeLessThanOrEqual(TOLERANCE_MS);
  }
}

describe('OCR of generated videos', { timeout: 60_000 }, () => {
  it('reads every caption over a moving fractal, boxed, outlined and plain, in five fonts', () => {
    const result = results.get('captionsAndLogo')!;
    expectCaptionsRead(captionsAndLogo, result);
    expect(inventedSegments(captionsAndLogo, result.segments)).toEqual([]);
  });

  it('keeps the static logo as one segment over the whole video', () => {
    const logo = results.get('captionsAndLogo')!.segments.filter((s) => cer('UNFURL TV', s.text) <= 0.2);
    expect(logo).toHaveLength(1);
    expect(logo[0]).toMatchObject({ startMs: 0, endMs: 20_000 });
  });

  it('reads captions over a test pattern with a ticker, including one replaced in place', () => {
    const result = results.get('captionsAndTicker')!;
    expectCaptionsRead(captionsAndTicker, result);
    expect(inventedSegments(captionsAndTicker, result.segments)).toEqual([]);
  });

  it('sees captions come and go under a deep, fast zoom', () => {
    for (const name of ['zoomAt100s', 'zoomAt280s'] as const) {
      const spec = name === 'zoomAt100s' ? zoomAt100s : zoomAt280s;
      const result = results.get(name)!;
      expectCaptionsRead(spec, result);
      expect(inventedSegments(spec, result.segments)).toEqual([]);
    }
  });

  it("finds the ticker's words", () => {
    const seen = new Set(
      results
        .get('captionsAndTicker')!
        .segments.flatMap((s) => s.text.toLowerCase().split(/\s+/))
        .map((w) => w.replace(/[^\p{L}\p{N}]/gu, '')),
    );
    const missing = TICKER.toLowerCase()
      .split(' ')
      .filter((w) => !seen.has(w));
    expect(missing).toEqual([]);
  });

  it('OCRs far fewer frames than it samples', () => {
    for (const [name, result] of results) {
      const sampled = name.startsWith('zoom') ? 32 : 40;
      expect(result.stats.sampledFrames, name).toBe(sampled);
      expect(result.stats.ocrFrames, name).toBeLessThanOrEqual(sampled / 2);
    }
  });
});
