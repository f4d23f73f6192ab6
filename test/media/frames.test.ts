// Frame sampling and key-frame choice on videos made here with ffmpeg (real decoding, real files).
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { fitWithin, keyFrames, pickKeyIndexes, sampleGrayFrames } from '../../src/media/frames.js';
import { generateVideo } from '../support/videos.js';

const run = promisify(execFile);
let dir: string;
let moving: string;
let cuts: string;
let still: string;
let audioOnly: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'frames-test-'));
  moving = await generateVideo(dir, 'moving', {
    durationSec: 6,
    width: 480,
    height: 270,
    background: 'testsrc2',
    texts: [],
  });
  still = await generateVideo(dir, 'still', {
    durationSec: 10,
    background: { color: '0x336699' },
    texts: [],
  });
  // Three scenes with hard cuts at 4 s and 8 s: a moving pattern, a solid colour, another colour.
  cuts = path.join(dir, 'cuts.mp4');
  await run('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i'],
    'testsrc2=s=320x240:r=25:d=12,' +
      "drawbox=x=0:y=0:w=iw:h=ih:c=0x2050c0:t=fill:enable='between(t,4,8)'," +
      "drawbox=x=0:y=0:w=iw:h=ih:c=0xf0e020:t=fill:enable='gte(t,8)',format=yuv420p",
    ...['-c:v', 'libx264', '-preset', 'veryfast', cuts],
  ]);
  audioOnly = path.join(dir, 'tone.m4a');
  await run('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=300:duration=2'],
    ...['-c:a', 'aac', audioOnly],
  ]);
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('fitWithin', () => {
  it('keeps the aspect ratio, even sides, never upscales', () => {
    expect(fitWithin(1920, 1080, 512)).toEqual({ width: 512, height: 288 });
    expect(fitWithin(1080, 1920, 512)).toEqual({ width: 288, height: 512 });
    expect(fitWithin(640, 360, 2048)).toEqual({ width: 640, height: 360 });
    expect(fitWithin(101, 51, 64)).toEqual({ width: 64, height: 32 });
  });
});

describe('sampleGrayFrames', { timeout: 60_000 }, () => {
  it('yields grayscale frames at the asked rate with their times', async () => {
    const frames = [];
    for await (const f of sampleGrayFrames(moving, { fps: 2, maxSide: 320 })) {
      frames.push({ index: f.index, timeMs: f.timeMs, w: f.width, h: f.height, bytes: f.data.length });
    }
    expect(frames).toHaveLength(12);
    expect(frames.map((f) => f.timeMs)).toEqual([...Array(12).keys()].map((i) => i * 500));
    expect(frames[0]).toMatchObject({ w: 320, h: 180, bytes: 320 * 180 });
  });

  it('stops ffmpeg when the reader stops early, and honours an abort', async () => {
    let seen = 0;
    for await (const _ of sampleGrayFrames(moving, { fps: 5 })) {
      if (++seen === 2) break;
    }
    expect(seen).toBe(2);
    const controller = new AbortController();
    const reading = (async () => {
      for await (const _ of sampleGrayFrames(moving, { fps: 5, signal: controller.signal })) {
        controller.abort(new Error('job cancelled'));
      }
    })();
    await expect(reading).rejects.toThrow('job cancelled');
  });

  it('refuses a file without a video stream, naming url', async () => {
    const err = await (async () => {
      for await (const _ of sampleGrayFrames(audioOnly)) {
        /* nothing */
      }
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('invalid_request');
    expect((err as AppError).details).toBe('url');
  });
});

describe('pickKeyIndexes', () => {
  it('takes the cuts first, then spreads evenly, never more than asked', () => {
    const changes = Array.from({ length: 40 }, (_, i) => (i === 13 ? 60 : i === 29 ? 45 : 1));
    expect(pickKeyIndexes(changes, 3)).toEqual([0, 13, 29]);
    const flat = Array.from({ length: 40 }, () => 0);
    expect(pickKeyIndexes(flat, 4)).toEqual([0, 10, 20, 30]);
    expect(pickKeyIndexes([0, 1, 2], 5)).toEqual([0, 1, 2]);
  });
});

describe('keyFrames', { timeout: 60_000 }, () => {
  it('chooses frames right after the cuts, as JPEGs within maxResolution, and deletes the others', async () => {
    const out = await mkdtemp(path.join(dir, 'kf-'));
    const frames = await keyFrames(cuts, { max: 3, maxResolution: 160, dir: out });
    expect(frames).toHaveLength(3);
    const [first, second, third] = frames.map((f) => f.timeMs);
    expect(first).toBe(0);
    expect(second).toBeGreaterThanOrEqual(4000);
    expect(second).toBeLessThanOrEqual(4600);
    expect(third).toBeGreaterThanOrEqual(8000);
    expect(third).toBeLessThanOrEqual(8600);
    expect((await readdir(out)).sort()).toEqual(frames.map((f) => path.basename(f.path)).sort());
    // A JPEG is not media the service takes (probe refuses images): measured with plain ffprobe.
    const size = await run('ffprobe', [
      ...['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height'],
      ...['-of', 'csv=p=0', frames[1]!.path],
    ]);
    expect(size.stdout.trim()).toBe('160,120');
  });

  it('spreads frames evenly over a picture that never changes', async () => {
    const out = await mkdtemp(path.join(dir, 'kf-'));
    const frames = await keyFrames(still, { max: 4, maxResolution: 2048, dir: out });
    expect(frames.map((f) => f.timeMs)).toEqual([0, 2500, 5000, 7500]);
    expect(frames[0]).toMatchObject({ width: 640, height: 360 });
  });
});
