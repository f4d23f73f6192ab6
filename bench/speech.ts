// Speech recognition on this machine: CPU seconds (and wall seconds) per minute of audio for a
// generated recording (default 5 minutes of tones and pauses), with a model file of the exact
// tiny.en shape and random weights (test/support/whisper-model.ts: whisper.cpp's cost does not
// depend on the values; its decoder is steered to decode like a trained model, ~20 tokens per 30 s).
//  - ours: recogniseSpeech with the whisper recogniser, the whole way a job goes — ffmpeg to 16 kHz
//    FLAC, the part decoded to raw samples, a fresh child process that loads the model, runs
//    whisper.cpp and answers over IPC, cues made — the engine closed at the end;
//  - in-process: the same library (@napi-rs/whisper) called directly in this process on samples
//    decoded beforehand (untimed): load the model, full() with the same parameters;
//  - whisper.cpp CLI (when UNFURL_BENCH_WHISPER_CLI names its `main`/`whisper-cli` binary, built from
//    the same whisper.cpp release as the library): the same model on a 16 kHz WAV made beforehand.
// The engine's child is the compiled dist/ one when `npm run build` is newer than its sources (as in
// production: plain node); otherwise the sources' child under tsx, whose start costs more — the
// output says which. CPU = this process plus its children once waited for (/proc/self/stat
// cutime+cstime). Each way runs
// BENCH_SPEECH_RUNS times (default 2), interleaved; the lowest CPU of each is reported (shared cores
// add noise, never remove work). Env: BENCH_SPEECH_SECONDS, BENCH_SPEECH_RUNS, UNFURL_BENCH_WHISPER_CLI.
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Whisper, WhisperFullParams, WhisperSamplingStrategy } from '@napi-rs/whisper';
import { budget } from '../src/media/ai/budget.js';
import { recogniseSpeech } from '../src/media/asr/recognise.js';
import { WhisperEngine as SourceEngine } from '../src/media/asr/whisper/engine.js';
import { partTimeout, whisperRecogniser } from '../src/media/asr/whisper/recogniser.js';
import { toneMp3 } from '../test/media/ai/media.js';
import { TINY_EN, writeWhisperModel } from '../test/support/whisper-model.js';

const run = promisify(execFile);

/** The compiled engine when dist/ is up to date with its sources (its child then runs on plain node). */
async function engineClass(): Promise<{ Engine: typeof SourceEngine; compiled: boolean }> {
  const built = (name: string) => path.resolve(`dist/media/asr/whisper/${name}.js`);
  const source = (name: string) => path.resolve(`src/media/asr/whisper/${name}.ts`);
  const fresh = ['engine', 'child', 'protocol'].every(
    (n) => existsSync(built(n)) && statSync(built(n)).mtimeMs >= statSync(source(n)).mtimeMs,
  );
  if (!fresh) return { Engine: SourceEngine, compiled: false };
  const mod = (await import(built('engine'))) as { WhisperEngine: typeof SourceEngine };
  return { Engine: mod.WhisperEngine, compiled: true };
}

async function childCpuSeconds(): Promise<number> {
  const stat = await readFile('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100; // cutime + cstime, USER_HZ 100
}

interface Measured {
  cpu: number;
  wall: number;
  segments: number;
}

async function measure(work: () => Promise<number>): Promise<Measured> {
  const own0 = process.cpuUsage();
  const kids0 = await childCpuSeconds();
  const t0 = performance.now();
  const segments = await work();
  const wall = (performance.now() - t0) / 1000;
  const own = process.cpuUsage(own0);
  const cpu = (own.user + own.system) / 1e6 + ((await childCpuSeconds()) - kids0);
  return { cpu, wall, segments };
}

export async function benchSpeech(): Promise<void> {
  const seconds = Number(process.env.BENCH_SPEECH_SECONDS ?? 300);
  const runs = Number(process.env.BENCH_SPEECH_RUNS ?? 2);
  const cli = process.env.UNFURL_BENCH_WHISPER_CLI;
  const threads = os.availableParallelism();
  const { Engine, compiled } = await engineClass();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-speech-'));
  try {
    const model = path.join(dir, 'tiny-en-shape.bin');
    await writeWhisperModel(model, TINY_EN);
    // A tone of its own pitch every 6 s, 4 s long: sound and pauses like speech in sentences.
    const media = path.join(dir, 'recording.mp3');
    const tones = Array.from({ length: Math.floor(seconds / 6) }, (_, i) => ({
      startSec: 6 * i + 1,
      endSec: 6 * i + 5,
      hz: 200 + 37 * (i % 20),
    }));
    await toneMp3(media, seconds, tones);
    const wav = path.join(dir, 'recording.wav');
    const pcm = path.join(dir, 'recording.f32');
    const decode = ['-v', 'error', '-i', media, '-ac', '1', '-ar', '16000'];
    await run('ffmpeg', [...decode, '-c:a', 'pcm_s16le', '-y', wav]);
    await run('ffmpeg', [...decode, '-f', 'f32le', '-y', pcm]);

    const ours = () =>
      measure(async () => {
        const engine = new Engine({ modelPath: model, threads, processes: 1, idleMs: 60_000 });
        const work = await mkdtemp(path.join(dir, 'job-'));
        try {
          const speech = await recogniseSpeech(media, {
            recogniser: whisperRecogniser(engine, partTimeout(10)),
            dir: work,
            maxSeconds: seconds + 60,
            budget: budget(3_600_000),
            signal: new AbortController().signal,
          });
          return speech.cues.length;
        } finally {
          await engine.close();
          await rm(work, { recursive: true, force: true });
        }
      });
    const inProcess = () =>
      measure(async () => {
        const bytes = await readFile(pcm);
        const samples = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
        const whisper = new Whisper(model);
        const params = new WhisperFullParams(WhisperSamplingStrategy.Greedy);
        params.nThreads = threads;
        params.noContext = true;
        params.language = 'en';
        const text = whisper.full(params, samples);
        return text.length > 0 ? 1 : 0;
      });
    const binary = () =>
      measure(async () => {
        const { stdout } = await run(
          cli!,
          ['-m', model, '-f', wav, '-t', String(threads), '-bs', '1', '-mc', '0', '-np'],
          {
            maxBuffer: 64 * 1024 * 1024,
          },
        );
        return stdout.split('\n').filter((l) => l.startsWith('[')).length;
      });

    const ways: Array<[string, () => Promise<Measured>]> = [
      ['ours (child process, ffmpeg, IPC)', ours],
      ['in-process @napi-rs/whisper', inProcess],
    ];
    if (cli && existsSync(cli)) ways.push(['whisper.cpp CLI', binary]);
    const best = new Map<string, Measured>();
    for (let i = 0; i < runs; i++) {
      for (const [name, way] of ways) {
        const m = await way();
        console.log(`  run ${i + 1}: ${name}: CPU ${m.cpu.toFixed(1)} s, wall ${m.wall.toFixed(1)} s`);
        const prev = best.get(name);
        if (!prev || m.cpu < prev.cpu) best.set(name, m);
      }
    }
    const minutes = seconds / 60;
    console.log(
      `\nspeech: ${seconds} s of generated audio, tiny.en-shaped model (random weights), ${threads} threads, best of ${runs}`,
    );
    console.log(
      `  our child process: ${compiled ? 'compiled dist/ on node' : 'sources under tsx (run `npm run build` first for the compiled one)'}`,
    );
    const baseline = best.get(ways[1]![0])!;
    for (const [name] of ways) {
      const m = best.get(name)!;
      console.log(
        `  ${name.padEnd(36)} CPU ${(m.cpu / minutes).toFixed(2)} s/min  wall ${(m.wall / minutes).toFixed(2)} s/min  ` +
          `(×${(m.cpu / baseline.cpu).toFixed(3)} CPU vs in-process)  ${m.segments} segments/outputs`,
      );
    }
    if (!cli) console.log('  (no UNFURL_BENCH_WHISPER_CLI: the raw whisper.cpp binary was not run)');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
