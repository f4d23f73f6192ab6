// On-screen text of a video: frames sampled at a fixed rate (default 2 per second) and streamed out of
// ffmpeg; only the frames whose overlaid text may have changed are OCR'd (TextChangeDetector), in
// batches run by a few tesseract processes side by side; every other frame takes the reading of the
// last OCR'd frame; the lines are then merged into timed segments.
import { rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppError } from '../../errors.js';
import { type ProbeResult, probe } from '../ffmpeg.js';
import { type GrayFrame, sampleGrayFrames } from '../frames.js';
import { type ChangeOptions, type FrameVerdict, TextChangeDetector } from './change-detector.js';
import { mergeReadings, placeLine } from './merge.js';
import { ocrImages } from './preprocess.js';
import { buildSegments, type OcrSegment } from './segments.js';
import { medianFrame } from './stack.js';
import { type OcrLine, recogniseBatch, type TesseractOptions } from './tesseract.js';

/** Frames stacked: the three after a changed frame that show the same text (five read no better). */
const STACK = 3;

export interface VideoOcrOptions
  extends Pick<TesseractOptions, 'lang' | 'psm' | 'minWordConf' | 'minLineConf'> {
  /** Directory for the frames handed to tesseract (a per-job scratch dir). */
  scratchDir: string;
  /** Frames sampled per second (default 2). */
  fps?: number;
  /** false: OCR every sampled frame (the naive baseline the bench compares with). Default true. */
  detectChanges?: boolean;
  change?: ChangeOptions;
  /** Read only the band of rows where text appeared, carrying the other lines over (default true). */
  cropToChange?: boolean;
  /** Read new text a second time on the next frames showing it, keeping the better reading (default true). */
  readTwice?: boolean;
  /** Read the median of a changed frame and the next two showing the same text (default true). */
  stackFrames?: boolean;
  /** tesseract processes at once (default: the cores, at most 4). */
  concurrency?: number;
  /** Frames per tesseract process (default 6): one model load per batch. */
  batchSize?: number;
  /** Longest side of the frames OCR'd (default 1280). */
  maxSide?: number;
  signal?: AbortSignal;
  probed?: ProbeResult;
  /** Called after each batch with frames OCR'd so far. */
  onProgress?: (ocrFrames: number, sampledFrames: number) => void;
  /** Reads a batch of images (default: the tesseract CLI); tests wrap it to delay a batch. */
  recognise?: typeof recogniseBatch;
}

export interface VideoOcrResult {
  segments: OcrSegment[];
  stats: {
    /** Frames sampled from the video. */
    sampledFrames: number;
    /** Frames that went through tesseract. */
    ocrFrames: number;
    durationMs: number;
  };
}

export async function ocrVideo(file: string, options: VideoOcrOptions): Promise<VideoOcrResult> {
  const fps = options.fps ?? 2;
  const intervalMs = 1000 / fps;
  const probed = options.probed ?? (await probe(file, { signal: options.signal }));
  if (!probed.hasVideo) throw new AppError('invalid_request', 'The URL has no video stream', 'url');
  const concurrency = Math.max(1, options.concurrency ?? Math.min(4, os.availableParallelism()));
  const batchSize = Math.max(1, options.batchSize ?? 6);
  const detect = options.detectChanges ?? true;
  const detector = new TextChangeDetector(options.change);
  const stacking = options.stackFrames ?? true;
  const cropping = options.cropToChange ?? true;
  const rereading = options.readTwice ?? true;
  const recognise = options.recognise ?? recogniseBatch;
  // A failing batch stops the others and the decoding.
  const inner = new AbortController();
  const onOuterAbort = () => inner.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const signal = inner.signal;

  const readings = new Map<number, OcrLine[]>();
  /** For every sampled frame, the OCR'd frame whose reading it takes. */
  const source: number[] = [];
  type Item = { index: number; images: Array<{ path: string; scale: number }>; offsetTop: number };
  let batch: Item[] = [];
  const running = new Set<Promise<void>>();
  let failure: unknown = null;
  let batchNo = 0;
  let ocrFrames = 0;
  let sampled = 0;

  const runBatch = async (items: Item[]) => {
    const list = path.join(options.scratchDir, `batch-${batchNo++}.txt`);
    const images = items.flatMap((i) => i.images);
    try {
      const lines = await recognise(
        images.map((i) => i.path),
        list,
        { ...options, signal },
      );
      let k = 0;
      for (const item of items) {
        const own = item.images.map((img) => ({ lines: lines[k++]!, scale: img.scale }));
        const merged = mergeReadings(own).map((l) => placeLine(l, 1, item.offsetTop));
        const pending = derived.get(item.index);
        if (pending) pending.own = merged;
        else readings.set(item.index, merged);
      }
      resolveDerived();
      ocrFrames += items.length;
      options.onProgress?.(ocrFrames, sampled);
    } finally {
      await Promise.all([list, ...images.map((i) => i.path)].map((p) => rm(p, { force: true })));
    }
  };

  const dispatch = async () => {
    if (batch.length === 0) return;
    const items = batch;
    batch = [];
    while (running.size >= concurrency) await Promise.race(running);
    if (failure) throw failure;
    const job = runBatch(items).catch((err: unknown) => {
      failure ??= err;
      inner.abort(err);
    });
    const tracked = job.finally(() => running.delete(tracked));
    running.add(tracked);
  };

  // Frames whose reading builds on the previous one, worked out once that one is known (then the maps
  // the test needs are let go): where text only went away, the previous lines still shown; where text
  // appeared in a band of rows that alone was read, those lines plus the previous ones outside the band
  // still shown.
  type Derived = {
    from: number;
    stillShown: FrameVerdict['stillShown'];
    band?: { top: number; height: number };
    own?: OcrLine[];
    /** A second reading of the same text: the better of each line's two readings is kept. */
    vote?: boolean;
  };
  const derived = new Map<number, Derived>();
  function resolveDerived() {
    for (const [index, d] of derived) {
      const from = readings.get(d.from);
      if (!from || (d.band && !d.own)) break;
      const band = d.band;
      const outside = (l: OcrLine) =>
        !band || l.top + l.height <= band.top || l.top >= band.top + band.height;
      if (d.vote) {
        // Both readings are of the same text (nothing changed in between): the merged one stands for
        // the frames since the first too, so a line the first reading missed starts when it appeared.
        const merged = mergeReadings([
          { lines: from, scale: 1 },
          { lines: d.own ?? [], scale: 1 },
        ]);
        readings.set(index, merged);
        readings.set(d.from, merged);
        derived.delete(index);
        continue;
      }
      const kept = from.filter((line) => outside(line) && d.stillShown(line));
      readings.set(
        index,
        [...kept, ...(d.own ?? [])].sort((a, b) => a.top - b.top || a.left - b.left),
      );
      derived.delete(index);
    }
  }

  let lastOcr = -1;
  const ocrFrame = async (
    frame: GrayFrame,
    verdict?: FrameVerdict,
    from = -1,
    still = frame,
    vote = false,
  ) => {
    const band = cropping && from >= 0 ? verdict?.band : null;
    const crop = (f: GrayFrame): GrayFrame => {
      if (!band) return f;
      const start = band.top * f.width;
      return { ...f, height: band.height, data: f.data.slice(start, start + band.height * f.width) };
    };
    if (band) derived.set(frame.index, { from, stillShown: verdict!.stillShown, band, vote });
    const images = [];
    for (const [v, image] of ocrImages(crop(frame), crop(still)).entries()) {
      const file = path.join(options.scratchDir, `frame-${frame.index}-${v}.pgm`);
      await writeFile(file, image.pgm);
      images.push({ path: file, scale: image.scale });
    }
    batch.push({ index: frame.index, images, offsetTop: band ? band.top : 0 });
    if (batch.length >= batchSize) await dispatch();
  };
  // A frame whose text changed waits for the next three (when they show the same text) and the median
  // of those three is read instead (stack.ts); with change detection only, never for the naive
  // baseline. Left out, the changed frame itself: text caught fading in, or the encoder's first
  // coarse picture of it. Fewer frames showing the text: the median of the first three, else the first.
  let stack: GrayFrame[] = [];
  let stackVerdict: { verdict: FrameVerdict; from: number; vote: boolean } | undefined;
  // New text read in a band is read once more on the next stack of frames still showing it, and each
  // line keeps the better of its two readings (one misread word no longer stands for the whole caption).
  let reread: { verdict: FrameVerdict; from: number } | null = null;
  const flushStack = async () => {
    if (stack.length === 0) return;
    const frames = stack;
    stack = [];
    const read = frames.length > STACK ? frames.slice(1) : frames;
    const median = medianFrame(read);
    const calm = { ...median.calm, index: frames[0]!.index, timeMs: frames[0]!.timeMs };
    const { still } = median;
    const sv = stackVerdict;
    await ocrFrame(calm, sv?.verdict, sv?.from, still, sv?.vote);
    if (rereading && sv && !sv.vote && sv.from >= 0 && sv.verdict.band && frames.length >= STACK)
      reread = { verdict: sv.verdict, from: frames[0]!.index };
  };
  const take = async (frame: GrayFrame, changed: boolean, verdict?: FrameVerdict) => {
    const stackable = verdict !== undefined && !changed && !verdict.scrolling;
    if (stack.length > 0 && stackable) {
      stack.push(frame);
      if (stack.length >= STACK + (stackVerdict?.vote ? 0 : 1)) await flushStack();
      source[frame.index] = lastOcr;
      return;
    }
    await flushStack();
    const again = reread;
    reread = null;
    if (again && stackable && stacking) {
      lastOcr = frame.index;
      stack = [frame];
      stackVerdict = { verdict: again.verdict, from: again.from, vote: true };
      source[frame.index] = lastOcr;
      return;
    }
    if (verdict?.removalOnly && lastOcr >= 0) {
      derived.set(frame.index, { from: lastOcr, stillShown: verdict.stillShown });
      lastOcr = frame.index;
      resolveDerived();
    } else if (changed || lastOcr < 0) {
      const from = lastOcr;
      lastOcr = frame.index;
      if (verdict && !verdict.scrolling && stacking) {
        stack = [frame];
        stackVerdict = { verdict, from, vote: false };
      } else await ocrFrame(frame, verdict, from);
    }
    source[frame.index] = lastOcr;
  };

  try {
    // ffmpeg waits on the OCR (back-pressure), so its stream lasts as long as the whole reading: its
    // limit grows with the video (a job's own time limit and signal stop it sooner).
    const timeoutMs = 10 * 60_000 + Math.max(0, probed.durationSec) * 10_000;
    for await (const frame of sampleGrayFrames(file, {
      fps,
      maxSide: options.maxSide,
      signal,
      probed,
      timeoutMs,
    })) {
      if (failure) break;
      sampled++;
      if (!detect) {
        await take(frame, true);
        continue;
      }
      const verdict = detector.push(frame);
      if (verdict) await take(verdict.frame, verdict.changed, verdict);
    }
    if (detect && !failure) {
      const last = detector.finish();
      if (last) await take(last.frame, last.changed, last);
      if (!failure) await flushStack();
    }
    if (!failure) await dispatch();
    await Promise.all(running);
    if (failure) throw failure;
  } catch (err) {
    inner.abort(err);
    await Promise.allSettled(running);
    throw failure ?? err;
  } finally {
    options.signal?.removeEventListener('abort', onOuterAbort);
  }

  const durationMs = Math.round((probed.durationSec > 0 ? probed.durationSec : sampled / fps) * 1000);
  resolveDerived();
  const frames = source.map((s) => readings.get(s) ?? []);

  return {
    segments: buildSegments(frames, { intervalMs, durationMs }),
    stats: { sampledFrames: sampled, ocrFrames, durationMs },
  };
}
