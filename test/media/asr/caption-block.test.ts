// Transcripts that survive a caption block: in auto mode the video-sharing platform (its replay
// server) refuses every caption request with 429 while its media file can still be downloaded →
// a speech-recognition job (202, priced as speech) on this machine's whisper.cpp instead of a 502.
// Turned off by UNFURL_TRANSCRIPT_BLOCK_FALLBACK=false; without speech recognition the refusal stays.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { waitForJob } from '../../support/wait-for-job.js';
import { MINI_EN, writeWhisperModel } from '../../support/whisper-model.js';
import { startYouTubeReplay, type YouTubeReplay } from '../../support/youtube-replay.js';
import { type AiApp, balance, ledgerOf, startAiApp } from '../ai/harness.js';
import { haveFfmpeg, toneVideo } from '../ai/media.js';

const ffmpeg = haveFfmpeg();
vi.setConfig({ testTimeout: 120_000 });

/** A captured player answer of this video: captions offered, streams with direct URLs, 316 s long. */
const VIDEO = 'GJLlxj_dtq8';
const WATCH = `https://www.youtube.com/watch?v=${VIDEO}`;

let work: string;
let model: string;
let replay: YouTubeReplay;

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-caption-block-'));
  model = path.join(work, 'model.bin');
  await writeWhisperModel(model, MINI_EN);
  if (!ffmpeg) return;
  const clip = path.join(work, 'clip.mp4');
  await toneVideo(clip, {
    durationSec: 9,
    tones: [{ startSec: 1, endSec: 6, hz: 440 }],
    width: 160,
    height: 120,
  });
  replay = await startYouTubeReplay({ timedtextStatus: 429, media: fs.readFileSync(clip) });
}, 60_000);

afterAll(async () => {
  await replay?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

const appEnv = (extra: Record<string, string> = {}) => ({
  UNFURL_UPSTREAM_YOUTUBE: replay.url,
  UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
  UNFURL_ASR_ENGINE: 'whisper',
  UNFURL_ASR_MODEL: model,
  UNFURL_ASR_THREADS: '1',
  ...extra,
});

async function withApp(env: Record<string, string>, body: (app: AiApp, key: string) => Promise<void>) {
  const app = await startAiApp(null, env);
  try {
    await body(app, (await app.t.register()).apiKey);
  } finally {
    await app.close();
  }
}

const auto = (app: AiApp, key: string) =>
  app.t.call(key, { method: 'GET', url: `/v1/transcript?url=${encodeURIComponent(WATCH)}` });

describe.skipIf(!ffmpeg)('auto mode when the platform refuses captions', () => {
  it('falls back to speech recognition of the downloadable media: a 202 job, held and billed as speech', async () => {
    await withApp(appEnv(), async (app, key) => {
      const before = replay.count('/api/timedtext');
      const res = await auto(app, key);
      expect(res.statusCode, res.body).toBe(202);
      expect(replay.count('/api/timedtext')).toBeGreaterThan(before);
      // The platform says 316 s: 6 started minutes held at 2 credits each; the refused captions cost nothing.
      expect(res.headers['x-credits-held']).toBe('12');
      const { jobId } = res.json();
      const poll = await waitForJob(app.t, key, `/v1/transcript/${jobId}`);
      expect(poll.error).toBeNull();
      expect(poll.data.lang).toBe('en');
      expect(poll.data.content.length).toBeGreaterThan(0);
      const last = poll.data.content.at(-1);
      // The last cue ends where the sound does (AAC pads a few ms).
      expect(Math.abs(last.offset + last.duration - 9000)).toBeLessThan(100);
      expect(replay.count('/videoplayback')).toBeGreaterThanOrEqual(1);
      // Settled on the 9 s actually recognised: one started minute.
      expect(await balance(app.t, key)).toBe(98);
      expect(await ledgerOf(app.t, jobId)).toEqual([
        { type: 'hold', amount: -12 },
        { type: 'release', amount: 12 },
        { type: 'settled', amount: -2 },
      ]);
    });
  });

  it('UNFURL_TRANSCRIPT_BLOCK_FALLBACK=false keeps the refusal: 502, nothing charged, no job', async () => {
    await withApp(appEnv({ UNFURL_TRANSCRIPT_BLOCK_FALLBACK: 'false' }), async (app, key) => {
      const res = await auto(app, key);
      expect(res.statusCode, res.body).toBe(502);
      expect(res.json()).toMatchObject({ error: 'upstream_error' });
      expect(res.json().message).toMatch(/HTTP 429/);
      expect(await balance(app.t, key)).toBe(100);
      expect((await app.t.call(key, { method: 'GET', url: '/v1/jobs' })).json().total).toBe(0);
    });
  });

  it('without speech recognition the refusal is the answer (502), not a 503', async () => {
    await withApp(appEnv({ UNFURL_ASR_ENGINE: 'provider' }), async (app, key) => {
      const res = await auto(app, key);
      expect(res.statusCode, res.body).toBe(502);
      expect(await balance(app.t, key)).toBe(100);
    });
  });
});
