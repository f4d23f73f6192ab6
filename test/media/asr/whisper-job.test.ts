// Speech recognition through the API on this machine's whisper.cpp (UNFURL_ASR_ENGINE=whisper) with
// model files generated in whisper.cpp's format (random weights: meaningless words, real decoding):
// GET /v1/transcript?mode=generate → 202 → the job → cues, priced and held exactly as the provider
// path; a corrupt model fails the job cleanly with its hold released; the request's lang reaches a
// multilingual model; and in a deployment of several processes, only the ones with the engine
// claim speech jobs.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type JobProcessing, startJobProcessing } from '../../../src/jobs/processing.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { quietLogger } from '../../support/quiet-logger.js';
import { waitForJob } from '../../support/wait-for-job.js';
import {
  MINI_EN,
  MINI_MULTILINGUAL,
  SEGMENT_SECONDS,
  WORDS_PER_SEGMENT,
  writeWhisperModel,
} from '../../support/whisper-model.js';
import { type AiApp, balance, ledgerOf, startAiApp } from '../ai/harness.js';
import { haveFfmpeg, type MediaServer, startMediaServer, toneMp3 } from '../ai/media.js';

const ffmpeg = haveFfmpeg();
vi.setConfig({ testTimeout: 120_000 });

let dir: string;
let media: MediaServer;
const models = { english: '', multilingual: '', corrupt: '' };
const whisperEnv = (model: string) => ({
  UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
  UNFURL_JOB_POLL_MS: '50',
  UNFURL_ASR_ENGINE: 'whisper',
  UNFURL_ASR_MODEL: model,
  UNFURL_ASR_THREADS: '1',
});

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'unfurl-whisper-job-'));
  models.english = path.join(dir, 'en.bin');
  models.multilingual = path.join(dir, 'multi.bin');
  models.corrupt = path.join(dir, 'corrupt.bin');
  await writeWhisperModel(models.english, MINI_EN);
  await writeWhisperModel(models.multilingual, MINI_MULTILINGUAL);
  // A real model cut short: the header loads, the tensors are missing.
  const whole = path.join(dir, 'whole.bin');
  await writeWhisperModel(whole, MINI_EN, 2);
  const { readFile } = await import('node:fs/promises');
  await writeFile(models.corrupt, (await readFile(whole)).subarray(0, 1_000_000));
  if (!ffmpeg) return;
  media = await startMediaServer();
  await toneMp3(path.join(media.dir, 'short.mp3'), 12, [
    { startSec: 1, endSec: 4, hz: 440 },
    { startSec: 6, endSec: 11, hz: 660 },
  ]);
}, 60_000);

afterAll(async () => {
  await media?.close();
  await rm(dir, { recursive: true, force: true });
});

const generate = (t: TestApp, key: string, extra = '') =>
  t.call(key, {
    method: 'GET',
    url: `/v1/transcript?url=${encodeURIComponent(media.urlOf('short.mp3'))}&mode=generate${extra}`,
  });

async function withApp(env: Record<string, string>, body: (app: AiApp) => Promise<void>): Promise<void> {
  const app = await startAiApp(null, env);
  try {
    await body(app);
  } finally {
    await app.close();
  }
}

describe.skipIf(!ffmpeg)('speech recognition with whisper.cpp on this machine', () => {
  it('202 → job → cues in ms on the recording’s clock; 2 credits per started minute, held and settled as with a provider', async () => {
    await withApp(whisperEnv(models.english), async ({ t }) => {
      const { apiKey } = await t.register();
      const res = await generate(t, apiKey);
      expect(res.statusCode, res.body).toBe(202);
      expect(res.headers['x-credits-held']).toBe('20');
      const { jobId } = res.json();
      const poll = await waitForJob(t, apiKey, `/v1/transcript/${jobId}`);
      expect(poll.error).toBeNull();
      expect(poll.data.lang).toBe('en');
      // The model's segments start every SEGMENT_SECONDS; the last is clipped at the 12 s end.
      expect(
        poll.data.content.map((c: { offset: number; duration: number }) => [c.offset, c.duration]),
      ).toEqual([
        [0, SEGMENT_SECONDS * 1000],
        [SEGMENT_SECONDS * 1000, 12_000 - SEGMENT_SECONDS * 1000],
      ]);
      for (const c of poll.data.content) {
        expect(c.text.split(' ')).toHaveLength(WORDS_PER_SEGMENT);
        expect(c.lang).toBe('en');
      }
      expect(await balance(t, apiKey)).toBe(98);
      expect(await ledgerOf(t, jobId)).toEqual([
        { type: 'hold', amount: -20 },
        { type: 'release', amount: 20 },
        { type: 'settled', amount: -2 },
      ]);
    });
  });

  it('the request’s lang is the multilingual model’s language; the answer says so', async () => {
    await withApp(whisperEnv(models.multilingual), async ({ t }) => {
      const { apiKey } = await t.register();
      for (const lang of ['de', 'pt-BR']) {
        const res = await generate(t, apiKey, `&lang=${lang}`);
        expect(res.statusCode, res.body).toBe(202);
        const poll = await waitForJob(t, apiKey, `/v1/transcript/${res.json().jobId}`);
        expect(poll.data.lang).toBe(lang.slice(0, 2));
      }
    });
  });

  it('a corrupt model file fails the job with a clear error; everything held comes back', async () => {
    await withApp(whisperEnv(models.corrupt), async ({ t }) => {
      const { apiKey } = await t.register();
      const { jobId } = (await generate(t, apiKey)).json();
      const poll = await waitForJob(t, apiKey, `/v1/transcript/${jobId}`);
      expect(poll).toMatchObject({ status: 'failed', data: null });
      expect(poll.error).toMatch(/speech recognition model could not be loaded/);
      expect(await balance(t, apiKey)).toBe(100);
      expect(await ledgerOf(t, jobId)).toEqual([
        { type: 'hold', amount: -20 },
        { type: 'release', amount: 20 },
      ]);
      const job = (await t.call(apiKey, { method: 'GET', url: `/v1/jobs/${jobId}` })).json();
      expect(job).toMatchObject({ status: 'failed', credits: 0, attempts: 1 });
    });
  });

  it('several processes on one queue: a worker without the engine never claims speech jobs; one with it does', async () => {
    // The API process accepts speech jobs (it is configured for them) but runs none itself.
    const api = await createTestApp(whisperEnv(models.english));
    const started: Array<{ t: TestApp; processing: JobProcessing }> = [];
    const worker = async (env: Record<string, string>) => {
      const t = await createTestApp({ ...api.env.env, ...env });
      started.push({ t, processing: await startJobProcessing(t.services, quietLogger) });
      return t;
    };
    try {
      await worker({ UNFURL_ASR_ENGINE: 'provider' });
      const { apiKey } = await api.register();
      const res = await generate(api, apiKey);
      expect(res.statusCode, res.body).toBe(202);
      const url = `/v1/transcript/${res.json().jobId}`;
      // Long enough for many polls (50 ms) or a queue delivery: the incapable worker leaves it alone.
      await new Promise((r) => setTimeout(r, 1500));
      expect((await api.call(apiKey, { method: 'GET', url })).json().status).toBe('queued');
      await worker(whisperEnv(models.english));
      const poll = await waitForJob(api, apiKey, url);
      expect(poll.status).toBe('completed');
      expect(poll.data.content.length).toBeGreaterThan(0);
    } finally {
      for (const { t, processing } of started.reverse()) {
        await processing.stop(1000);
        await t.close();
      }
      await api.close();
    }
  });
});
