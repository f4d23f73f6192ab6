// OCR of a generated 5-minute video (captions changing every 6 s in five fonts, colours, positions and
// styles over a moving fractal, plus a static logo; test/support/videos.ts), two ways in the same run:
//  - ours: frames sampled at 2 per second, OCR only where the overlaid text may have changed
//    (TextChangeDetector): new text is read on the median of the three frames after the one where it
//    appeared, in the band of rows where it appeared, and a second time on the next three frames (the
//    better reading of each line kept); readings carried over and merged into segments;
//  - naive: the same sampling rate and the same per-frame OCR (four images per frame, tesseract
//    batches, the same parallelism), but every sampled frame OCR'd, no change detection; the same
//    merging into segments, so accuracy compares the frames read and nothing else.
// Compute = CPU seconds of this process plus its children (ffmpeg, tesseract: /proc/self/stat
// cutime+cstime, which counts children once they were waited for), and wall seconds; both per minute
// of video. Accuracy = character error rate of each caption against the best segment overlapping it,
// and boundary errors. Env: BENCH_OCR_SECONDS (video length, default 300).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ocrVideo, type VideoOcrResult } from '../src/media/ocr/video-ocr.js';
import { captionedSpec, generateVideo, LOGO, scoreCaptions, truthOf } from '../test/support/videos.js';

async function childCpuSeconds(): Promise<number> {
  const stat = await readFile('/proc/self/stat', 'utf8');
  // Fields after the command name (which may hold spaces) start at state; cutime and cstime are 16 and 17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[13]) + Number(fields[14]);
  return ticks / 100; // USER_HZ is 100 on Linux
}

async function measure(file: string, detectChanges: boolean) {
  const scratchDir = await mkdtemp(path.join(os.tmpdir(), 'bench-ocr-scratch-'));
  const own0 = process.cpuUsage();
  const kids0 = await childCpuSeconds();
  const t0 = performance.now();
  let result: VideoOcrResult;
  try {
    result = await ocrVideo(file, { scratchDir, detectChanges });
  } finally {
    await rm(scratchDir, { recursive: true, force: true });
  }
  const wall = (performance.now() - t0) / 1000;
  const own = process.cpuUsage(own0);
  const ownCpu = (own.user + own.system) / 1e6;
  const kidsCpu = (await childCpuSeconds()) - kids0;
  return { result, wall, cpu: ownCpu + kidsCpu, ownCpu, kidsCpu };
}

export async function benchOcr(): Promise<void> {
  const seconds = Number(process.env.BENCH_OCR_SECONDS ?? 300);
  const spec = captionedSpec(seconds);
  spec.fps = 10;
  spec.texts.push(LOGO);
  // The video is made once and kept in the temp dir (a fractal takes a while to render).
  const dir = path.join(os.tmpdir(), 'unfurl-bench-ocr');
  await mkdir(dir, { recursive: true });
  const name = `captions-${seconds}s-v1`;
  const file = path.join(dir, `${name}.mp4`);
  if (!existsSync(file)) {
    const t = performance.now();
    await generateVideo(dir, name, spec);
    console.log(`ocr: generated ${file} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  const truth = truthOf(spec);
  const minutes = seconds / 60;
  console.log(
    `ocr: ${seconds} s video, 640×360, ${truth.length} captions + a static logo, 2 frames/s sampled`,
  );
  const rows: Array<[string, Awaited<ReturnType<typeof measure>>]> = [];
  for (const [label, detect] of [
    ['ours (change detection)', true],
    ['naive (every frame)', false],
  ] as const) {
    rows.push([label, await measure(file, detect)]);
  }
  for (const [label, m] of rows) {
    const scores = scoreCaptions(truth, m.result.segments);
    const cers = scores.map((s) => s.cer);
    const meanCer = cers.reduce((a, b) => a + b, 0) / cers.length;
    const within = scores.filter((s) => s.cer <= 0.05).length;
    const bound = scores.filter((s) => s.startErrMs <= 600 && s.endErrMs <= 600).length;
    console.log(
      `  ${label.padEnd(24)} frames OCR'd ${String(m.result.stats.ocrFrames).padStart(4)}/${m.result.stats.sampledFrames}` +
        `  CPU ${m.cpu.toFixed(1)} s (ours ${m.ownCpu.toFixed(1)} + children ${m.kidsCpu.toFixed(1)})` +
        ` = ${(m.cpu / minutes).toFixed(2)} s/min of video, wall ${m.wall.toFixed(1)} s = ${(m.wall / minutes).toFixed(2)} s/min` +
        `  | mean CER ${(meanCer * 100).toFixed(2)} %, ${within}/${scores.length} captions CER ≤ 5 %, ` +
        `${bound}/${scores.length} boundaries within 600 ms`,
    );
  }
  // Where ours errs, caption by caption: what to fix next.
  for (const s of scoreCaptions(truth, rows[0]![1].result.segments)) {
    const late = s.startErrMs > 600 || s.endErrMs > 600;
    if (s.cer <= 0.05 && !late) continue;
    const found = s.found
      ? `${JSON.stringify(s.found.text)} ${s.found.startMs}–${s.found.endMs} ms`
      : 'nothing';
    console.log(
      `    CER ${(s.cer * 100).toFixed(1).padStart(5)} %${late ? ', boundary off' : ''}: ` +
        `${JSON.stringify(s.truth.text)} ${s.truth.startMs}–${s.truth.endMs} ms → ${found}`,
    );
  }
  const [ours, naive] = [rows[0]![1], rows[1]![1]];
  console.log(
    `  ratio naive/ours: CPU ${(naive.cpu / ours.cpu).toFixed(2)}×, wall ${(naive.wall / ours.wall).toFixed(2)}×, ` +
      `frames OCR'd ${(naive.result.stats.ocrFrames / ours.result.stats.ocrFrames).toFixed(2)}× (target ≥ 5× less compute at equal accuracy)`,
  );
}
