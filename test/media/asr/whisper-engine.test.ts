// whisper.cpp in supervised child processes, on model files generated with random weights in the
// real format (test/support/whisper-model.ts: the words are meaningless, the decoding is real):
// loading once and staying warm, one run at a time per process, the idle stop, the time-out kill,
// cancellation, a corrupt model file, the language hint and detection, and cues on the clock of
// a generated recording cut into several parts.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { budget } from '../../../src/media/ai/budget.js';
import { recogniseSpeech } from '../../../src/media/asr/recognise.js';
import { WhisperEngine } from '../../../src/media/asr/whisper/engine.js';
import { partTimeout, whisperRecogniser } from '../../../src/media/asr/whisper/recogniser.js';
import {
  MINI_EN,
  MINI_MULTILINGUAL,
  SEGMENT_SECONDS,
  WORDS_PER_SEGMENT,
  writeWhisperModel,
} from '../../support/whisper-model.js';
import { haveFfmpeg, toneMp3 } from '../ai/media.js';

const run = promisify(execFile);
const ffmpeg = haveFfmpeg();
vi.setConfig({ testTimeout: 120_000 });

let dir: string;
let english: string;
let multilingual: string;
/** 4 s of tones as raw 16 kHz float samples, what the engine is handed. */
let pcm: string;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const engines: WhisperEngine[] = [];
function engine(model: string, opts: Partial<ConstructorParameters<typeof WhisperEngine>[0]> = {}) {
  const e = new WhisperEngine({ modelPath: model, threads: 1, processes: 1, idleMs: 60_000, ...opts });
  engines.push(e);
  return e;
}

const recognise = (
  e: WhisperEngine,
  extra: { language?: string | null; timeoutMs?: number; signal?: AbortSignal } = {},
) =>
  e.recognise({
    pcmFile: pcm,
    language: extra.language ?? null,
    timeoutMs: extra.timeoutMs ?? 60_000,
    signal: extra.signal ?? new AbortController().signal,
  });

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'unfurl-whisper-'));
  english = path.join(dir, 'mini-en.bin');
  multilingual = path.join(dir, 'mini-multi.bin');
  await writeWhisperModel(english, MINI_EN);
  await writeWhisperModel(multilingual, MINI_MULTILINGUAL);
  if (!ffmpeg) return;
  pcm = path.join(dir, 'tones.f32');
  await run(
    'ffmpeg',
    ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=4', '-ac', '1', '-ar', '16000'].concat([
      '-f',
      'f32le',
      '-y',
      pcm,
    ]),
  );
}, 60_000);

afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!ffmpeg)('whisper.cpp engine', () => {
  it('loads the model once and stays warm: the second run reuses the same process', async () => {
    const e = engine(english);
    const first = await recognise(e);
    expect(first.language).toBe('en');
    expect(first.segments.length).toBeGreaterThan(0);
    expect(first.segments[0]!.text.split(' ')).toHaveLength(WORDS_PER_SEGMENT);
    const [pid] = e.pids();
    const second = await recognise(e);
    expect(second).toEqual(first);
    expect(e.started).toBe(1);
    expect(e.pids()).toEqual([pid]);
  });

  it('runs one job at a time per process: more jobs than processes wait their turn', async () => {
    const one = engine(english);
    const answers = await Promise.all([recognise(one), recognise(one), recognise(one)]);
    expect(answers.every((a) => a.segments.length > 0)).toBe(true);
    expect(one.started).toBe(1);
    const two = engine(english, { processes: 2 });
    await Promise.all([recognise(two), recognise(two), recognise(two)]);
    expect(two.started).toBe(2);
    expect(new Set(two.pids()).size).toBe(2);
  });

  it('stops a process that idled past its timeout; the next job starts a fresh one', async () => {
    const e = engine(english, { idleMs: 100 });
    await recognise(e);
    const [pid] = e.pids();
    await until(() => e.pids().length === 0 && !alive(pid!));
    await recognise(e);
    expect(e.started).toBe(2);
  });

  it('kills a process that overruns its time-out and answers the next job with a new one', async () => {
    const e = engine(english);
    await recognise(e); // loaded and warm: the time-out below hits a run, not the start
    const [pid] = e.pids();
    await expect(recognise(e, { timeoutMs: 1 })).rejects.toMatchObject({
      code: 'internal_error',
      retryable: false,
      message: expect.stringMatching(/took longer than/),
    });
    await until(() => !alive(pid!));
    expect((await recognise(e)).segments.length).toBeGreaterThan(0);
    expect(e.started).toBe(2);
  });

  it('a cancelled job kills its process at once', async () => {
    const e = engine(english);
    await recognise(e);
    const [pid] = e.pids();
    const ac = new AbortController();
    const pending = recognise(e, { signal: ac.signal });
    setTimeout(() => ac.abort(new Error('cancelled by the caller')), 20);
    await expect(pending).rejects.toThrow('cancelled by the caller');
    await until(() => !alive(pid!));
  });

  it('a corrupt model file fails the job with a clear error, and so does a missing one', async () => {
    const corrupt = path.join(dir, 'corrupt.bin');
    // The right magic and header, then garbage where the tensors should be: whisper.cpp gives up loading.
    await writeFile(corrupt, Buffer.concat([Buffer.from('lmgg', 'latin1'), Buffer.alloc(4096, 7)]));
    await expect(recognise(engine(corrupt))).rejects.toMatchObject({
      code: 'internal_error',
      retryable: false,
      message: expect.stringMatching(/model could not be loaded/),
    });
    await expect(recognise(engine(path.join(dir, 'missing.bin')))).rejects.toMatchObject({
      message: expect.stringMatching(/model could not be loaded/),
    });
  });

  it('a multilingual model detects the language, and decodes in the one hinted', async () => {
    const e = engine(multilingual);
    const detected = await recognise(e);
    expect(detected.language).toMatch(/^[a-z]{2,3}$/);
    const hinted = await recognise(e, { language: detected.language === 'de' ? 'fr' : 'de' });
    expect(hinted.language).toBe(detected.language === 'de' ? 'fr' : 'de');
  });

  it('recognises a recording in parts: cues in ms on the whole recording’s clock, clipped to each part', async () => {
    const media = path.join(dir, 'tones.mp3');
    const tones = [
      { startSec: 0.5, endSec: 8, hz: 440 },
      { startSec: 10, endSec: 19, hz: 660 },
    ];
    await toneMp3(media, 20, tones);
    const work = await mkdtemp(path.join(dir, 'job-'));
    const e = engine(english);
    // Parts of at most 12 s: cut in the pause at 8–10 s.
    const recogniser = { ...whisperRecogniser(e, partTimeout(3)), maxPartSeconds: 12 };
    const speech = await recogniseSpeech(media, {
      recogniser,
      dir: work,
      maxSeconds: 600,
      budget: budget(60_000),
      signal: new AbortController().signal,
    });
    expect(speech.parts).toBe(2);
    expect(speech.lang).toBe('en');
    const cut = speech.cues.find((c) => c.offset > 0 && c.offset % (SEGMENT_SECONDS * 1000) !== 0)!.offset;
    expect(cut).toBeGreaterThan(8000);
    expect(cut).toBeLessThan(10_000);
    // Each part: segments every SEGMENT_SECONDS from its start, the last clipped at the part's end.
    const expected = [0, cut].flatMap((start, i) => {
      const end = i === 0 ? cut : 20_000;
      const out: Array<{ offset: number; duration: number }> = [];
      for (let t = start; t < end; t += SEGMENT_SECONDS * 1000) {
        out.push({ offset: t, duration: Math.min(t + SEGMENT_SECONDS * 1000, end) - t });
      }
      return out;
    });
    expect(speech.cues.map(({ offset, duration }) => ({ offset, duration }))).toEqual(expected);
    for (const c of speech.cues) expect(c.text.split(' ')).toHaveLength(WORDS_PER_SEGMENT);
  });
});
