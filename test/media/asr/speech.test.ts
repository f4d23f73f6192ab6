// Speech recognition end to end: GET /v1/transcript?mode=generate on a direct MP3 served on
// loopback → 202 → the transcript job (real ffmpeg, real HTTP to an OpenAI-compatible stand-in that
// reads the uploaded audio and reports the tones in it) → poll. Offsets are checked against the
// times the tones were generated at.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { OpenAiServer } from '../../support/openai-server.js';
import { waitForJob } from '../../support/wait-for-job.js';
import { type AiApp, balance, ledgerOf, startAiApp, useAiMediaApp } from '../ai/harness.js';
import { haveFfmpeg, type MediaServer, type Tone, toneMp3 } from '../ai/media.js';

const ffmpeg = haveFfmpeg();
// Each test runs whole jobs (ffmpeg, several HTTP round trips): room for a loaded CI machine.
vi.setConfig({ testTimeout: 120_000 });

const SHORT: Tone[] = [
  { startSec: 1, endSec: 3, hz: 440 },
  { startSec: 5, endSec: 7.5, hz: 660 },
  { startSec: 9, endSec: 11, hz: 880 },
];
/** 70 s: a tone every 5 s, each of its own pitch, silence between. */
const LONG: Tone[] = Array.from({ length: 13 }, (_, i) => ({
  startSec: 5 * i + 1,
  endSec: 5 * i + 3.5,
  hz: 300 + 100 * i,
}));

let ai: OpenAiServer;
let media: MediaServer;
let main: AiApp;

useAiMediaApp(
  ffmpeg,
  async (media) => {
    await toneMp3(path.join(media.dir, 'short.mp3'), 12, SHORT);
    await toneMp3(path.join(media.dir, 'long.mp3'), 70, LONG);
  },
  (stage) => {
    ({ ai, media, main } = stage);
  },
);

/** What is left in the app's scratch space (created by the first job; its directories go when jobs end). */
const scratchLeft = (app: AiApp) => readdir(path.join(app.t.env.config.dataDir, 'scratch'));

const generate = (app: AiApp, key: string, file: string, extra = '') =>
  app.t.call(key, {
    method: 'GET',
    url: `/v1/transcript?url=${encodeURIComponent(media.urlOf(file))}&mode=generate${extra}`,
  });

/** Every generated tone is one cue: same pitch, start and length within `toleranceMs`. */
function expectTones(
  content: Array<{ text: string; offset: number; duration: number; lang: string }>,
  tones: Tone[],
) {
  expect(content.map((c) => c.text)).toEqual(tones.map((t) => `tone ${t.hz} Hz.`));
  for (const [i, t] of tones.entries()) {
    expect(Math.abs(content[i]!.offset - t.startSec * 1000), `start of tone ${t.hz}`).toBeLessThan(150);
    expect(
      Math.abs(content[i]!.offset + content[i]!.duration - t.endSec * 1000),
      `end of tone ${t.hz}`,
    ).toBeLessThan(300);
  }
}

describe.skipIf(!ffmpeg)('speech recognition (mode=generate)', () => {
  it('202 → job → transcript with offsets on the recording’s clock; 16 kHz mono MP3 sent; billed per started minute', async () => {
    const { apiKey } = await main.t.register();
    const res = await generate(main, apiKey, 'short.mp3');
    expect(res.statusCode, res.body).toBe(202);
    const { jobId } = res.json();
    expect(jobId).toMatch(/^job_/);
    // Length unknown before probing (a plain file URL): the default 10 minutes are held.
    expect(res.headers['x-credits-held']).toBe('20');
    expect(res.headers['x-credits-charged']).toBe('0');
    expect(res.headers['x-credits-remaining']).toBe('80');

    const poll = await waitForJob(main.t, apiKey, `/v1/transcript/${jobId}`);
    expect(poll.error).toBeNull();
    expect(poll.status).toBe('completed');
    expect(poll.data.lang).toBe('en');
    expect(poll.data.availableLangs).toEqual([]);
    expectTones(poll.data.content, SHORT);
    for (const c of poll.data.content) expect(c.lang).toBe('en');

    // What the provider received: one upload, converted, the whole recording, the right fields.
    expect(ai.uploads).toHaveLength(1);
    const up = ai.uploads[0]!;
    expect(up).toMatchObject({ codec: 'mp3', sampleRate: 16000, channels: 1, contentType: 'audio/mpeg' });
    expect(Math.abs(up.durationSec - 12)).toBeLessThan(0.3);
    expect(up.fields).toMatchObject({
      model: ['whisper-1'],
      response_format: ['verbose_json'],
      'timestamp_granularities[]': ['segment'],
    });
    expect(ai.log.every((l) => l.path === '/v1/audio/transcriptions')).toBe(true);

    expect(await scratchLeft(main)).toEqual([]);
    // 12 s → 1 started minute → 2 credits; the rest of the hold came back.
    expect(await balance(main.t, apiKey)).toBe(98);
    expect(await ledgerOf(main.t, jobId)).toEqual([
      { type: 'hold', amount: -20 },
      { type: 'release', amount: 20 },
      { type: 'settled', amount: -2 },
    ]);
  });

  it('mode=auto on a file (no captions of its own) falls back to speech recognition', async () => {
    const { apiKey } = await main.t.register();
    const res = await main.t.call(apiKey, {
      method: 'GET',
      url: `/v1/transcript?url=${encodeURIComponent(media.urlOf('short.mp3'))}`,
    });
    expect(res.statusCode, res.body).toBe(202);
    const poll = await waitForJob(main.t, apiKey, `/v1/transcript/${res.json().jobId}`);
    expectTones(poll.data.content, SHORT);
  });

  it('text=true and chunkSize shape the recognised cues like native captions', async () => {
    const { apiKey } = await main.t.register();
    const asText = await generate(main, apiKey, 'short.mp3', '&text=true');
    const text = await waitForJob(main.t, apiKey, `/v1/transcript/${asText.json().jobId}`);
    expect(text.data.content).toBe('tone 440 Hz. tone 660 Hz. tone 880 Hz.');
    const chunked = await generate(main, apiKey, 'short.mp3', '&chunkSize=50');
    const merged = await waitForJob(main.t, apiKey, `/v1/transcript/${chunked.json().jobId}`);
    expect(merged.data.content.map((c: { text: string }) => c.text)).toEqual([
      'tone 440 Hz. tone 660 Hz. tone 880 Hz.',
    ]);
    expect(Math.abs(merged.data.content[0].offset - 1000)).toBeLessThan(150);
  });

  it('a repeated request while the job runs answers the same jobId and holds nothing more', async () => {
    const { apiKey } = await main.t.register();
    ai.delayMs = 1500;
    const first = await generate(main, apiKey, 'short.mp3');
    const second = await generate(main, apiKey, 'short.mp3');
    expect(second.statusCode).toBe(202);
    expect(second.json().jobId).toBe(first.json().jobId);
    expect(await balance(main.t, apiKey)).toBe(80);
    // Another shape of the answer is another job.
    const other = await generate(main, apiKey, 'short.mp3', '&text=true');
    expect(other.json().jobId).not.toBe(first.json().jobId);
    await waitForJob(main.t, apiKey, `/v1/transcript/${first.json().jobId}`);
    await waitForJob(main.t, apiKey, `/v1/transcript/${other.json().jobId}`);
    expect(await balance(main.t, apiKey)).toBe(96);
  });

  it('429 with Retry-After: waits as told, then succeeds', async () => {
    const { apiKey } = await main.t.register();
    ai.failWith = (route, n) =>
      route === '/v1/audio/transcriptions' && n === 1
        ? { status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'Rate limit reached' } } }
        : null;
    const { jobId } = (await generate(main, apiKey, 'short.mp3')).json();
    const poll = await waitForJob(main.t, apiKey, `/v1/transcript/${jobId}`);
    expect(poll.status).toBe('completed');
    expectTones(poll.data.content, SHORT);
    expect(ai.log.map((l) => l.status)).toEqual([429, 200]);
    // The retry base is 40 ms: a gap of a second is the Retry-After.
    expect(ai.log[1]!.at - ai.log[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('a provider that stays down: the job fails with a clear error, and everything held is released', async () => {
    const { apiKey } = await main.t.register();
    ai.failWith = () => ({ status: 503, body: { error: { message: 'upstream overloaded' } } });
    const { jobId } = (await generate(main, apiKey, 'short.mp3')).json();
    const poll = await waitForJob(main.t, apiKey, `/v1/transcript/${jobId}`);
    expect(poll).toMatchObject({ status: 'failed', data: null });
    expect(poll.error).toMatch(
      /speech recognition provider failed 4 times \(last: HTTP 503: upstream overloaded\)/,
    );
    expect(ai.log.map((l) => l.status)).toEqual([503, 503, 503, 503]);
    expect(await balance(main.t, apiKey)).toBe(100);
    expect(await ledgerOf(main.t, jobId)).toEqual([
      { type: 'hold', amount: -20 },
      { type: 'release', amount: 20 },
    ]);
    const job = (await main.t.call(apiKey, { method: 'GET', url: `/v1/jobs/${jobId}` })).json();
    expect(job).toMatchObject({ status: 'failed', credits: 0, attempts: 1 });
    // The job's scratch files (download, audio, parts) went with it.
    expect(await scratchLeft(main)).toEqual([]);
  });

  it('a provider that drops connections or refuses the key fails the job at once, unbilled', async () => {
    const { apiKey } = await main.t.register();
    ai.failWith = () => ({ status: 0, hangUp: true });
    const dropped = (await generate(main, apiKey, 'short.mp3')).json().jobId;
    const one = await waitForJob(main.t, apiKey, `/v1/transcript/${dropped}`);
    expect(one.status).toBe('failed');
    expect(one.error).toMatch(/speech recognition provider failed 4 times/);
    ai.reset();
    ai.failWith = () => ({ status: 401, body: { error: { message: 'Incorrect API key provided' } } });
    const refused = (await generate(main, apiKey, 'short.mp3', '&text=true')).json().jobId;
    const two = await waitForJob(main.t, apiKey, `/v1/transcript/${refused}`);
    expect(two.error).toBe(
      'The speech recognition provider refused the request (HTTP 401: Incorrect API key provided)',
    );
    expect(ai.log).toHaveLength(1);
    expect(await balance(main.t, apiKey)).toBe(100);
  });

  it('long audio is cut on silences into parts under the upload limit and stitched on one clock', async () => {
    const small = await startAiApp(ai, { UNFURL_ASR_MAX_UPLOAD_BYTES: '65536' });
    try {
      const { apiKey } = await small.t.register();
      const { jobId } = (await generate(small, apiKey, 'long.mp3')).json();
      const poll = await waitForJob(small.t, apiKey, `/v1/transcript/${jobId}`, { timeoutMs: 120_000 });
      expect(poll.error).toBeNull();
      expectTones(poll.data.content, LONG);
      // 64 KiB at 32 kbit/s is under 16 s a part: 70 s takes at least five.
      expect(ai.uploads.length).toBeGreaterThanOrEqual(5);
      for (const up of ai.uploads) {
        expect(up.bytes).toBeLessThanOrEqual(65536);
        expect(up).toMatchObject({ codec: 'mp3', sampleRate: 16000, channels: 1 });
      }
      const total = ai.uploads.reduce((s, u) => s + u.durationSec, 0);
      expect(Math.abs(total - 70)).toBeLessThan(0.5 + 0.1 * ai.uploads.length);
      // Cut in the pauses: every tone arrived whole in exactly one part.
      expect(ai.uploads.flatMap((u) => u.tones.map((t) => t.hz))).toEqual(LONG.map((t) => t.hz));
      for (const up of ai.uploads)
        for (const tone of up.tones) expect(tone.end - tone.start).toBeGreaterThan(2.2);
      // 70 s → 2 started minutes.
      expect(await balance(small.t, apiKey)).toBe(96);
    } finally {
      await small.close();
    }
  }, 150_000);
});

describe.skipIf(!ffmpeg)('speech recognition length cap (UNFURL_AI_MAX_MINUTES)', () => {
  it('media longer than the cap fails payload_too_large before any provider call, unbilled', async () => {
    const capped = await startAiApp(ai, { UNFURL_AI_MAX_MINUTES: '1' });
    try {
      const { apiKey } = await capped.t.register();
      const { jobId } = (await generate(capped, apiKey, 'long.mp3')).json();
      const poll = await waitForJob(capped.t, apiKey, `/v1/transcript/${jobId}`);
      expect(poll).toMatchObject({
        status: 'failed',
        error: 'The media lasts 2 minutes; this server takes at most 1',
      });
      expect(ai.log).toEqual([]);
      expect(await balance(capped.t, apiKey)).toBe(100);
      // Within the cap it runs as usual.
      const short = (await generate(capped, apiKey, 'short.mp3')).json().jobId;
      expect((await waitForJob(capped.t, apiKey, `/v1/transcript/${short}`)).status).toBe('completed');
    } finally {
      await capped.close();
    }
  });
});

describe.skipIf(!ffmpeg)('speech recognition without a provider', () => {
  it('503 provider_unavailable at submit: no job, no credit held', async () => {
    const bare = await startAiApp(null);
    try {
      const { apiKey } = await bare.t.register();
      const res = await generate(bare, apiKey, 'short.mp3');
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ error: 'provider_unavailable' });
      expect(res.json().message).toMatch(/speech recognition/);
      expect(await balance(bare.t, apiKey)).toBe(100);
      expect((await bare.t.call(apiKey, { method: 'GET', url: '/v1/jobs' })).json().total).toBe(0);
    } finally {
      await bare.close();
    }
  });
});
