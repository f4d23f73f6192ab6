// The same video gives byte-identical segments on every run: whatever the number of tesseract
// processes and the batch size, when one batch finishes after later ones (some readings are derived
// from earlier ones, so completion order must not matter), and when two videos are read at once (two
// jobs, UNFURL_OCR_CONCURRENCY > 1). Real ffmpeg and tesseract on a generated 40-second video: five
// captions over a moving gradient, the last one plain black. The different answer once seen for "the
// same" video came from the video: ffmpeg's gradients source picks random colours unless told, so each
// generation was another picture; the generator now seeds it, and the last test holds it to that.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recogniseBatch } from '../../../src/media/ocr/tesseract.js';
import { ocrVideo, type VideoOcrOptions } from '../../../src/media/ocr/video-ocr.js';
import { generateVideo, scoreCaptions, truthOf, type VideoSpec } from '../../support/videos.js';

const spec: VideoSpec = {
  durationSec: 40,
  background: 'gradients',
  texts: [
    { text: 'Morning news at seven', startSec: 1, endSec: 7, style: 'box', size: 30 },
    { text: 'Rain later in the north', startSec: 9, endSec: 15, style: 'outline', font: 'serif', size: 30 },
    {
      text: 'Prices rise by 3 percent',
      startSec: 17,
      endSec: 23,
      style: 'box',
      color: 'yellow',
      font: 'mono',
      size: 28,
    },
    { text: 'Interview with the mayor', startSec: 25, endSec: 31, style: 'plain', font: 'sansBold', y: '40' },
    {
      text: 'Thanks for watching',
      startSec: 33,
      endSec: 39,
      style: 'plain',
      color: 'black',
      font: 'sansBold',
    },
  ],
};

let dir: string;
let file: string;
let baseline: string;

const read = async (options: Partial<VideoOcrOptions> = {}) => {
  const scratchDir = await mkdtemp(path.join(dir, 'scratch-'));
  const result = await ocrVideo(file, { scratchDir, ...options });
  return { json: JSON.stringify(result.segments), result };
};

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'ocr-determinism-'));
  file = await generateVideo(dir, 'five', spec);
  baseline = (await read({ concurrency: 1 })).json;
}, 180_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Real decoding and OCR on a 2-core machine shared with other suites: generous time limits.
describe('OCR gives the same answer every time', { timeout: 240_000 }, () => {
  it('reads the five captions (the answer compared is a real one)', () => {
    const segments = JSON.parse(baseline);
    for (const score of scoreCaptions(truthOf(spec), segments)) {
      expect(score.cer, `${score.truth.text} → ${JSON.stringify(score.found)}`).toBeLessThanOrEqual(0.05);
    }
  });

  it('is byte-identical with 2 and 4 tesseract processes and other batch sizes', async () => {
    for (const [concurrency, batchSize] of [
      [2, 6],
      [4, 1],
      [2, 2],
    ] as const) {
      expect((await read({ concurrency, batchSize })).json, `${concurrency} × ${batchSize}`).toBe(baseline);
    }
  });

  it('is byte-identical when one batch finishes after the later ones', async () => {
    // Batch 1 is held back until batch 3 has finished: frames read later, some derived from batch 1's
    // frames, are known first.
    const finished: number[] = [];
    let calls = 0;
    let releaseHeld = () => {};
    const laterDone = new Promise<void>((resolve) => {
      releaseHeld = resolve;
    });
    const recognise: typeof recogniseBatch = async (images, list, options) => {
      const n = calls++;
      const lines = await recogniseBatch(images, list, options);
      if (n === 1) await Promise.race([laterDone, new Promise((r) => setTimeout(r, 60_000))]);
      finished.push(n);
      if (n === 3) releaseHeld();
      return lines;
    };
    const { json } = await read({ concurrency: 3, batchSize: 1, recognise });
    expect(finished.indexOf(1)).toBeGreaterThan(finished.indexOf(3));
    expect(json).toBe(baseline);
  });

  it('is byte-identical when two videos are read at once (two jobs side by side)', async () => {
    const both = await Promise.all([read({ concurrency: 2 }), read({ concurrency: 2 })]);
    expect(both.map((r) => r.json)).toEqual([baseline, baseline]);
  });

  it('generates the same video every time (a random background would be a different video)', async () => {
    const again = await generateVideo(dir, 'five-again', spec);
    const sha = async (f: string) =>
      createHash('sha256')
        .update(await readFile(f))
        .digest('hex');
    expect(await sha(again)).toBe(await sha(file));
  });
});
