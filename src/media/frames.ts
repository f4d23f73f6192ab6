// Frames out of a video with ffmpeg, streamed: grayscale frames at a fixed rate for OCR (piped as raw
// bytes, never written to disk), and a few key frames as JPEG files for the vision model.
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../errors.js';
import { displaySize, ffmpegPath, type ProbeResult, probe, streamTool } from './ffmpeg.js';
import { mediaInput } from './input.js';

export interface GrayFrame {
  /** 0-based index in the sampled sequence. */
  index: number;
  /** Time of the frame in the video (ms). */
  timeMs: number;
  width: number;
  height: number;
  /** width × height bytes, one per pixel, row by row. */
  data: Uint8Array;
}

export interface SampleOptions {
  /** Frames per second to sample (default 2). */
  fps?: number;
  /** Longest side of the frames handed out; bigger pictures are scaled down (default 1280). */
  maxSide?: number;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Probe already made by the caller (saves a second ffprobe). */
  probed?: ProbeResult;
}

/** Even dimensions with the long side at most `maxSide`, keeping the aspect ratio. */
export function fitWithin(width: number, height: number, maxSide: number): { width: number; height: number } {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  const even = (n: number) => Math.max(2, Math.round((n * scale) / 2) * 2);
  return { width: even(width), height: even(height) };
}

/**
 * Yields grayscale frames sampled at `fps`, as ffmpeg decodes them. Memory holds about one frame plus
 * the pipe; stopping the loop stops ffmpeg.
 */
export async function* sampleGrayFrames(
  file: string,
  options: SampleOptions = {},
): AsyncGenerator<GrayFrame> {
  const fps = options.fps ?? 2;
  const probed = options.probed ?? (await probe(file, { signal: options.signal }));
  const size = displaySize(probed);
  if (!probed.hasVideo || !size) throw new AppError('invalid_request', 'The URL has no video stream', 'url');
  const { width, height } = fitWithin(size.width, size.height, options.maxSide ?? 1280);
  const frameBytes = width * height;
  const args = [
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostdin',
    ...mediaInput(file),
    '-map',
    '0:v:0',
    '-an',
    '-sn',
    '-vf',
    `fps=${fps},scale=${width}:${height}:flags=area,format=gray`,
    '-f',
    'rawvideo',
    '-pix_fmt',
    'gray',
    'pipe:1',
  ];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let index = 0;
  for await (const chunk of streamTool(ffmpegPath(), args, {
    signal: options.signal,
    timeoutMs: options.timeoutMs,
  })) {
    pending.push(chunk);
    pendingBytes += chunk.length;
    while (pendingBytes >= frameBytes) {
      const all = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
      // Copy the frame out so the (possibly large) joined buffer is not kept alive by it.
      const data = new Uint8Array(all.subarray(0, frameBytes));
      const rest = all.subarray(frameBytes);
      pending = rest.length > 0 ? [rest] : [];
      pendingBytes = rest.length;
      yield { index, timeMs: Math.round((index * 1000) / fps), width, height, data };
      index++;
    }
  }
}

/** Mean absolute difference (0–255) between two equally sized grayscale thumbnails. */
export function meanAbsDiff(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return a.length > 0 ? sum / a.length : 0;
}

/**
 * Picks `max` indexes out of `count` candidates: first the frame that opens the video, then those
 * after the biggest picture changes (cuts), kept apart by a minimum spacing; what is left is filled
 * with evenly spread frames. `changes[i]` is the difference between candidate i and i−1.
 */
export function pickKeyIndexes(changes: readonly number[], max: number): number[] {
  const count = changes.length;
  if (count <= max) return [...Array(count).keys()];
  const minGap = Math.max(1, Math.floor(count / (max * 2)));
  const chosen = new Set<number>([0]);
  const farFromChosen = (i: number) => [...chosen].every((c) => Math.abs(c - i) >= minGap);
  // A change counts as a cut only when it stands out from the ordinary motion of the video.
  const sorted = [...changes].sort((x, y) => x - y);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const cuts = [...changes.keys()]
    .filter((i) => i > 0 && changes[i]! > Math.max(4, median * 3))
    .sort((x, y) => changes[y]! - changes[x]!);
  for (const i of cuts) {
    if (chosen.size >= max) break;
    if (farFromChosen(i)) chosen.add(i);
  }
  // Evenly spread: the starts of `max` equal slices, each taken unless a chosen frame is near.
  for (let k = 0; chosen.size < max && k < max; k++) {
    const i = Math.floor((k * count) / max);
    if (farFromChosen(i)) chosen.add(i);
  }
  for (let i = 0; chosen.size < max && i < count; i++) chosen.add(i);
  return [...chosen].sort((x, y) => x - y);
}

export interface KeyFrame {
  timeMs: number;
  /** A JPEG file in the caller's directory (removed with that directory). */
  path: string;
  width: number;
  height: number;
}

export interface KeyFrameOptions {
  /** How many frames (1–20 for describe). */
  max: number;
  /** Longest side of the JPEGs. */
  maxResolution: number;
  /** Directory the JPEGs are written to (a scratch dir). */
  dir: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  probed?: ProbeResult;
}

/** Candidates looked at per video: enough to see cuts, few enough to stay fast on long videos. */
const KEY_CANDIDATES = 120;
const THUMB_W = 64;
const THUMB_H = 36;

/**
 * Chooses up to `max` frames where the picture changes (evenly spread as a fallback) and writes them
 * as JPEGs with the long side ≤ `maxResolution`. One decoding pass: candidates are sampled evenly,
 * each both as a tiny thumbnail (piped, for comparing) and as a JPEG; the ones not chosen are deleted.
 */
export async function keyFrames(file: string, options: KeyFrameOptions): Promise<KeyFrame[]> {
  const max = Math.max(1, Math.floor(options.max));
  const probed = options.probed ?? (await probe(file, { signal: options.signal }));
  const size = displaySize(probed);
  if (!probed.hasVideo || !size) throw new AppError('invalid_request', 'The URL has no video stream', 'url');
  const out = fitWithin(size.width, size.height, options.maxResolution);
  const duration = probed.durationSec > 0 ? probed.durationSec : 60;
  const candidates = Math.max(max, Math.min(KEY_CANDIDATES, Math.ceil(duration * 2)));
  const fps = candidates / duration;
  const prefix = `key-${Date.now().toString(36)}-`;
  const args = [
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostdin',
    ...mediaInput(file),
    '-an',
    '-sn',
    '-filter_complex',
    `[0:v:0]fps=${fps.toFixed(6)},split=2[t][j];[t]scale=${THUMB_W}:${THUMB_H}:flags=area,format=gray[thumb];` +
      `[j]scale=${out.width}:${out.height}:flags=bicubic[jpeg]`,
    '-map',
    '[thumb]',
    '-frames:v',
    String(candidates),
    '-f',
    'rawvideo',
    '-pix_fmt',
    'gray',
    'pipe:1',
    '-map',
    '[jpeg]',
    '-frames:v',
    String(candidates),
    '-q:v',
    '3',
    '-start_number',
    '0',
    path.join(options.dir, `${prefix}%04d.jpg`),
  ];
  const thumbs: Uint8Array[] = [];
  let pending = Buffer.alloc(0);
  const thumbBytes = THUMB_W * THUMB_H;
  for await (const chunk of streamTool(ffmpegPath(), args, {
    signal: options.signal,
    timeoutMs: options.timeoutMs,
  })) {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= thumbBytes) {
      thumbs.push(new Uint8Array(pending.subarray(0, thumbBytes)));
      pending = pending.subarray(thumbBytes);
    }
  }
  const written = new Set((await readdir(options.dir)).filter((f) => f.startsWith(prefix)));
  const count = Math.min(thumbs.length, written.size);
  if (count === 0) throw new AppError('invalid_request', 'No frame could be decoded from the video', 'url');
  const changes = thumbs.slice(0, count).map((t, i) => (i === 0 ? 0 : meanAbsDiff(thumbs[i - 1]!, t)));
  const picked = new Set(pickKeyIndexes(changes, max));
  const frames: KeyFrame[] = [];
  for (let i = 0; i < written.size; i++) {
    const name = `${prefix}${String(i).padStart(4, '0')}.jpg`;
    const full = path.join(options.dir, name);
    if (picked.has(i) && i < count) {
      frames.push({ timeMs: Math.round((i * 1000) / fps), path: full, ...out });
    } else {
      await rm(full, { force: true });
    }
  }
  return frames;
}
