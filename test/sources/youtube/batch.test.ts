// Transcript and video batches end to end: a real app and job queue, UNFURL_UPSTREAM_YOUTUBE pointing
// at the loopback replay of the real captures, jobs created through POST /v1/vidsite/{transcript,
// video}/batch and polled through GET /v1/vidsite/batch/{jobId} (and the /v1/youtube/* aliases),
// billed 1 + 1 per video that succeeded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { classify } from '../../../src/jobs/failures.js';
import { inOrder } from '../../../src/jobs/in-order.js';
import type { JobItems } from '../../../src/jobs/items.js';
import { type JobProcessing, startJobProcessing } from '../../../src/jobs/processing.js';
import { JobRegistry } from '../../../src/jobs/registry.js';
import type { JobContext } from '../../../src/jobs/types.js';
import {
  BATCH_VIDEO_CONCURRENCY,
  type BatchPlatform,
  registerVideoBatches,
} from '../../../src/sources/youtube/batch-job.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { quietLogger } from '../../support/quiet-logger.js';
import { useReplayApp } from '../../support/replay-app.js';
import { waitForJob } from '../../support/wait-for-job.js';
import {
  CAPTURES,
  startBlockedYouTube,
  startYouTubeReplay,
  type YouTubeReplay,
} from '../../support/youtube-replay.js';

const VIDEO = 'GJLlxj_dtq8'; // captions in 8 languages, watch page
const NO_CAPTIONS = 'dsMFmonKDD4';
const AGE = 'Njp5uhTorCo';
const UNKNOWN = 'zzzzzzzzzzz'; // the replay answers "unavailable"
const CUES = [
  { text: 'Hey, this is just a test', offset: 0, duration: 1540, lang: 'en' },
  { text: 'this is not the original transcript', offset: 1540, duration: 4160, lang: 'en' },
  { text: 'just something shorter, I made up for testing', offset: 5700, duration: 3239, lang: 'en' },
];
const LANGS = ['zh', 'cs', 'en', 'de', 'hi', 'ja', 'ko', 'es'];

let replay: YouTubeReplay;
let t: TestApp;
let processing: JobProcessing;

useReplayApp(
  {
    upstream: 'YOUTUBE',
    start: () =>
      startYouTubeReplay({
        // Videos of the constructed channel and of a captured playlist, given player answers to fetch.
        players: {
          lockupVid01: { '*': CAPTURES.playerOk },
          lockupVid02: { '*': CAPTURES.playerNoCaptions },
          lockupVid03: { '*': CAPTURES.playerOk },
          'K6ry2Lm9-2Q': { '*': 'pytube/2lAe1cqCOXo.player.json' },
        },
      }),
    env: { UNFURL_JOB_POLL_MS: '50', UNFURL_JOB_BACKOFF_MS: '50' },
    register: false,
  },
  (stage) => {
    ({ replay, t } = stage);
  },
);

// Registered after the app's hooks, so processing stops before the app closes.
beforeAll(async () => {
  processing = await startJobProcessing(t.services, quietLogger);
});

afterAll(async () => {
  await processing?.stop();
});

const post = (app: TestApp, key: string, url: string, payload: object, headers = {}) =>
  app.call(key, { method: 'POST', url, payload, headers });
const get = (app: TestApp, key: string, url: string) => app.call(key, { method: 'GET', url });

const waitForBatch = (app: TestApp, key: string, jobId: string) =>
  waitForJob(app, key, `/v1/vidsite/batch/${jobId}`, { timeoutMs: 30_000 });

async function ledgerFor(app: TestApp, key: string, jobId: string) {
  const usage = (await get(app, key, '/v1/account/usage?limit=100')).json();
  return usage.transactions
    .filter((x: { job_id: string }) => x.job_id === jobId)
    .map((x: { type: string; amount: number }) => [x.type, x.amount])
    .sort();
}

describe('POST /v1/vidsite/transcript/batch', () => {
  it('answers per-video transcripts and errors in input order, billed 1 + the videos that succeeded', async () => {
    const { apiKey } = await t.register();
    const res = await post(t, apiKey, '/v1/vidsite/transcript/batch', {
      videoIds: [
        VIDEO,
        NO_CAPTIONS,
        `https://youtu.be/${VIDEO}?t=3`, // the same video again: counted once
        UNKNOWN,
        `https://www.youtube.com/shorts/${AGE}`,
      ],
      lang: 'en',
    });
    expect(res.statusCode).toBe(202);
    expect(res.headers['x-credits-held']).toBe('5');
    expect(res.headers['x-credits-remaining']).toBe('95');
    const { jobId } = res.json();
    const body = await waitForBatch(t, apiKey, jobId);
    expect(body).toEqual({
      status: 'completed',
      results: [
        { videoId: VIDEO, transcript: { content: CUES, lang: 'en', availableLangs: LANGS } },
        {
          videoId: NO_CAPTIONS,
          error: { error: 'transcript_unavailable', message: expect.any(String) },
          errorCode: 'transcript_unavailable',
        },
        {
          videoId: UNKNOWN,
          error: { error: 'not_found', message: expect.any(String) },
          errorCode: 'not_found',
        },
        { videoId: AGE, error: { error: 'forbidden', message: expect.any(String) }, errorCode: 'forbidden' },
      ],
      stats: { total: 4, succeeded: 1, failed: 3 },
      completedAt: expect.any(Number),
      error: null,
    });
    expect(await ledgerFor(t, apiKey, jobId)).toEqual([
      ['hold', -5],
      ['release', 5],
      ['settled', -2],
    ]);
    expect((await get(t, apiKey, '/v1/account')).json().credits).toBe(98);
    // The alias polls the same job; the job list shows its queue and cost.
    const alias = await get(t, apiKey, `/v1/youtube/batch/${jobId}`);
    expect(alias.statusCode).toBe(200);
    expect(alias.json()).toEqual(body);
    const summary = (await get(t, apiKey, `/v1/jobs/${jobId}`)).json();
    expect(summary).toMatchObject({ queue: 'transcript_batch', status: 'completed', credits: 2 });
    // Results page from ?skip=.
    const tail = (await get(t, apiKey, `/v1/vidsite/batch/${jobId}?skip=2`)).json();
    expect(tail.results.map((r: { videoId: string }) => r.videoId)).toEqual([UNKNOWN, AGE]);
    expect(tail.next).toBeUndefined();
  });

  it('shapes each transcript with text and chunkSize, through the /v1/youtube alias', async () => {
    const { apiKey } = await t.register();
    const text = await post(t, apiKey, '/v1/youtube/transcript/batch', { videoIds: [VIDEO], text: true });
    expect(text.statusCode).toBe(202);
    expect(text.headers['x-credits-held']).toBe('2');
    const one = await waitForBatch(t, apiKey, text.json().jobId);
    expect(one.results).toEqual([
      {
        videoId: VIDEO,
        transcript: { content: CUES.map((c) => c.text).join(' '), lang: 'en', availableLangs: LANGS },
      },
    ]);
    const chunked = await post(t, apiKey, '/v1/vidsite/transcript/batch', {
      videoIds: [VIDEO],
      chunkSize: 70,
      lang: 'de',
    });
    const merged = await waitForBatch(t, apiKey, chunked.json().jobId);
    const transcript = merged.results[0].transcript;
    expect(transcript.lang).toBe('de');
    expect(transcript.content.length).toBeLessThan(CUES.length);
    for (const chunk of transcript.content) expect(chunk.text.length).toBeLessThanOrEqual(70);
    expect((await get(t, apiKey, '/v1/account')).json().credits).toBe(100 - 2 - 2);
  });

  it('replays the same job for the same Idempotency-Key, held once', async () => {
    const { apiKey } = await t.register();
    const headers = { 'idempotency-key': 'batch-1' };
    const payload = { videoIds: [VIDEO, NO_CAPTIONS] };
    const first = await post(t, apiKey, '/v1/vidsite/transcript/batch', payload, headers);
    const again = await post(t, apiKey, '/v1/vidsite/transcript/batch', payload, headers);
    expect(again.statusCode).toBe(202);
    expect(again.json().jobId).toBe(first.json().jobId);
    await waitForBatch(t, apiKey, first.json().jobId);
    expect((await get(t, apiKey, '/v1/account')).json().credits).toBe(98);
  });
});

describe('POST /v1/vidsite/video/batch', () => {
  it('answers each video’s metadata, an error for one that is gone, billed 1 + 2', async () => {
    const { apiKey } = await t.register();
    const res = await post(t, apiKey, '/v1/vidsite/video/batch', {
      videoIds: [VIDEO, UNKNOWN, '2lAe1cqCOXo'],
    });
    expect(res.statusCode).toBe(202);
    expect(res.headers['x-credits-held']).toBe('4');
    const { jobId } = res.json();
    const body = await waitForBatch(t, apiKey, jobId);
    expect(body.status).toBe('completed');
    expect(body.stats).toEqual({ total: 3, succeeded: 2, failed: 1 });
    expect(body.results.map((r: { videoId: string }) => r.videoId)).toEqual([VIDEO, UNKNOWN, '2lAe1cqCOXo']);
    expect(body.results[0].video).toMatchObject({
      id: VIDEO,
      title: 'Surface Go Review - It’s Awesome',
      duration: 316,
      likeCount: 43864,
      transcriptLanguages: LANGS,
    });
    expect(Object.keys(body.results[0].video)).toHaveLength(13);
    expect(body.results[1]).toEqual({
      videoId: UNKNOWN,
      error: { error: 'not_found', message: expect.any(String) },
      errorCode: 'not_found',
    });
    expect(body.results[2].video.channel).toEqual({ id: 'UCBR8-60-B28hp2BmDPdntcQ', name: 'YouTube' });
    expect(await ledgerFor(t, apiKey, jobId)).toEqual([
      ['hold', -4],
      ['release', 4],
      ['settled', -3],
    ]);
    const alias = await post(t, apiKey, '/v1/youtube/video/batch', { videoIds: [AGE] });
    expect(alias.statusCode).toBe(202);
    const age = await waitForBatch(t, apiKey, alias.json().jobId);
    // Metadata the platform still shows for an age-restricted video is a success.
    expect(age.results[0].video).toMatchObject({ id: AGE, duration: 452 });
    expect(age.stats).toEqual({ total: 1, succeeded: 1, failed: 0 });

    // `limit` with videoIds takes the first ones, and holds for those only.
    const limited = await post(t, apiKey, '/v1/vidsite/video/batch', {
      videoIds: [VIDEO, UNKNOWN, '2lAe1cqCOXo'],
      limit: 2,
    });
    expect(limited.headers['x-credits-held']).toBe('3');
    const first = await waitForBatch(t, apiKey, limited.json().jobId);
    expect(first.results.map((r: { videoId: string }) => r.videoId)).toEqual([VIDEO, UNKNOWN]);
  });

  it('another account’s batch is a 404 on both poll routes and /v1/jobs', async () => {
    const a = await t.register();
    const b = await t.register();
    const { jobId } = (await post(t, a.apiKey, '/v1/vidsite/video/batch', { videoIds: [VIDEO] })).json();
    await waitForBatch(t, a.apiKey, jobId);
    for (const url of [`/v1/vidsite/batch/${jobId}`, `/v1/youtube/batch/${jobId}`, `/v1/jobs/${jobId}`]) {
      const res = await get(t, b.apiKey, url);
      expect([url, res.statusCode, res.json().error]).toEqual([url, 404, 'not_found']);
    }
    // A job of another kind is a 404 at the batch poll route.
    const crawl = await post(t, a.apiKey, '/v1/web/crawl', { url: `${replay.url}/nothing`, limit: 1 });
    expect(crawl.statusCode).toBe(202);
    expect((await get(t, a.apiKey, `/v1/vidsite/batch/${crawl.json().jobId}`)).statusCode).toBe(404);
  });
});

describe('playlist and channel batches', () => {
  it('takes a channel’s first `limit` videos (uploads, then shorts), billed 1 + the videos that succeeded', async () => {
    const { apiKey } = await t.register();
    const res = await post(t, apiKey, '/v1/vidsite/transcript/batch', {
      channelId: 'https://www.youtube.com/@ConstructedChannel',
      limit: 4,
      text: true,
    });
    expect(res.statusCode).toBe(202);
    expect(res.headers['x-credits-held']).toBe('5');
    const { jobId } = res.json();
    const body = await waitForBatch(t, apiKey, jobId);
    expect(body.status).toBe('completed');
    expect(body.results).toEqual([
      {
        videoId: 'lockupVid01',
        transcript: { content: expect.any(String), lang: 'en', availableLangs: LANGS },
      },
      {
        videoId: 'lockupVid02',
        error: { error: 'transcript_unavailable', message: expect.any(String) },
        errorCode: 'transcript_unavailable',
      },
      {
        videoId: 'lockupLive1',
        error: { error: 'not_found', message: expect.any(String) },
        errorCode: 'not_found',
      },
      {
        videoId: 'lockupVid03',
        transcript: { content: expect.any(String), lang: 'en', availableLangs: LANGS },
      },
    ]);
    expect(body.stats).toEqual({ total: 4, succeeded: 2, failed: 2 });
    expect(await ledgerFor(t, apiKey, jobId)).toEqual([
      ['hold', -5],
      ['release', 5],
      ['settled', -3],
    ]);
    // Past the six uploads the total fills with shorts; `limit` defaults to 10 (11 held).
    const more = await post(t, apiKey, '/v1/vidsite/video/batch', { channelId: 'UCc0nstructedChannel0001' });
    expect(more.headers['x-credits-held']).toBe('11');
    const all = await waitForBatch(t, apiKey, more.json().jobId);
    expect(all.results.map((r: { videoId: string }) => r.videoId)).toEqual([
      'lockupVid01',
      'lockupVid02',
      'lockupLive1',
      'lockupVid03',
      'lockupVid04',
      'lockupVid05',
      'shortsVid01',
      'shortsVid02',
      'shortsVid03',
      'streamPast1',
    ]);
  });

  it('takes a playlist’s first `limit` videos by id or URL', async () => {
    const { apiKey } = await t.register();
    const res = await post(t, apiKey, '/v1/youtube/video/batch', {
      playlistId: 'https://www.youtube.com/playlist?list=UU_aEa8K-EOJ3D6gOs7HcyNg',
      limit: 3,
    });
    expect(res.statusCode).toBe(202);
    expect(res.headers['x-credits-held']).toBe('4');
    const body = await waitForBatch(t, apiKey, res.json().jobId);
    expect(body.stats).toEqual({ total: 3, succeeded: 1, failed: 2 });
    expect(body.results).toHaveLength(3);
    expect(body.results[0].videoId).toBe('K6ry2Lm9-2Q');
    expect(body.results[0].video.channel).toEqual({ id: 'UCBR8-60-B28hp2BmDPdntcQ', name: 'YouTube' });
    expect(body.results.slice(1).map((r: { error: { error: string } }) => r.error.error)).toEqual([
      'not_found',
      'not_found',
    ]);
    expect((await get(t, apiKey, '/v1/account')).json().credits).toBe(98);
  });

  it('fails the job for a playlist or channel that does not exist (at once, nothing charged)', async () => {
    const { apiKey } = await t.register();
    for (const payload of [
      { playlistId: 'PLthisPlaylistDoesNotExist0' },
      { channelId: 'UCzzzzzzzzzzzzzzzzzzzzzz' },
      { channelId: '@nobodyHasThisHandle' },
    ]) {
      const { jobId } = (await post(t, apiKey, '/v1/vidsite/video/batch', payload)).json();
      const body = await waitForBatch(t, apiKey, jobId);
      expect(body).toMatchObject({
        status: 'failed',
        results: [],
        error: expect.stringMatching(/not found/),
      });
      const summary = (await get(t, apiKey, `/v1/jobs/${jobId}`)).json();
      expect(summary).toMatchObject({ attempts: 1, credits: 0 });
    }
    expect((await get(t, apiKey, '/v1/account')).json().credits).toBe(100);
  });

  it('retries a listing the platform fails (upstream_error), then fails the job unbilled', async () => {
    const { apiKey } = await t.register();
    // The captured Videos tab holds 30; its next page is refused by the stand-in (HTTP 400).
    const { jobId } = (
      await post(t, apiKey, '/v1/vidsite/video/batch', { channelId: 'UCs6nmQViDpUw0nuIx9c_WvA', limit: 31 })
    ).json();
    const body = await waitForBatch(t, apiKey, jobId);
    expect(body).toMatchObject({ status: 'failed', results: [] });
    const summary = (await get(t, apiKey, `/v1/jobs/${jobId}`)).json();
    expect(summary).toMatchObject({ attempts: 3, credits: 0 });
    expect((await get(t, apiKey, '/v1/account')).json().credits).toBe(100);
  });
});

describe('validation', () => {
  it('answers 400 naming the parameter, holding nothing and creating no job', async () => {
    const { apiKey } = await t.register();
    const tooMany = Array.from({ length: 501 }, (_, i) => `v${String(i).padStart(10, '0')}`);
    const cases: Array<[string, object, string]> = [
      ['/v1/vidsite/transcript/batch', {}, 'videoIds'],
      ['/v1/vidsite/video/batch', { lang: 'en' }, 'lang'],
      ['/v1/vidsite/transcript/batch', { videoIds: [VIDEO, 'not a video', VIDEO] }, 'videoIds[1]'],
      ['/v1/vidsite/video/batch', { videoIds: [VIDEO, 'https://vimeo.com/76979871'] }, 'videoIds[1]'],
      ['/v1/vidsite/video/batch', { videoIds: [] }, 'videoIds'],
      ['/v1/vidsite/video/batch', { videoIds: tooMany }, 'videoIds'],
      [
        '/v1/vidsite/video/batch',
        { videoIds: [VIDEO], playlistId: 'PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG' },
        'playlistId',
      ],
      [
        '/v1/vidsite/video/batch',
        { playlistId: 'PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG', channelId: '@Google' },
        'channelId',
      ],
      ['/v1/vidsite/video/batch', { videoIds: [VIDEO], limit: 0 }, 'limit'],
      ['/v1/vidsite/video/batch', { playlistId: 'PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG', limit: 1001 }, 'limit'],
      ['/v1/vidsite/video/batch', { playlistId: 'PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG', limit: 0 }, 'limit'],
      ['/v1/vidsite/video/batch', { playlistId: 'not a playlist' }, 'playlistId'],
      ['/v1/vidsite/video/batch', { channelId: 'https://vimeo.com/channels/x' }, 'channelId'],
      ['/v1/vidsite/transcript/batch', { videoIds: [VIDEO], chunkSize: 10 }, 'chunkSize'],
      ['/v1/vidsite/transcript/batch', { videoIds: [VIDEO], lang: 'not a language' }, 'lang'],
      [
        '/v1/vidsite/transcript/batch',
        { videoIds: [VIDEO], webhookUrl: 'ftp://example.com/x' },
        'webhookUrl',
      ],
      ['/v1/youtube/transcript/batch', { videoIds: [VIDEO], mode: 'generate' }, 'mode'],
    ];
    for (const [url, payload, param] of cases) {
      const res = await post(t, apiKey, url, payload);
      const where = `${url} ${JSON.stringify(payload).slice(0, 80)}`;
      expect([where, res.statusCode, res.json().error, res.json().details]).toEqual([
        where,
        400,
        'invalid_request',
        param,
      ]);
      expect(res.json().message, where).toContain(param.replace(/\[\d+\]$/, ''));
    }
    expect((await get(t, apiKey, '/v1/account')).json().credits).toBe(100);
    expect((await get(t, apiKey, '/v1/jobs')).json().total).toBe(0);
  });

  it('answers 402 when the hold cannot be covered, and nothing is held', async () => {
    const { apiKey } = await t.register();
    // 100 distinct videos hold 101 credits; the account has 100.
    const videoIds = Array.from({ length: 100 }, (_, i) => `v${String(i).padStart(10, '0')}`);
    const res = await post(t, apiKey, '/v1/vidsite/video/batch', { videoIds });
    expect(res.statusCode).toBe(402);
    expect(res.json().error).toBe('insufficient_credits');
    expect((await get(t, apiKey, '/v1/account')).json().credits).toBe(100);
    expect((await get(t, apiKey, '/v1/jobs')).json().total).toBe(0);
    // 99 of them fit.
    const fits = await post(t, apiKey, '/v1/vidsite/video/batch', { videoIds: videoIds.slice(0, 99) });
    expect(fits.statusCode).toBe(202);
    expect(fits.headers['x-credits-remaining']).toBe('0');
    const body = await waitForBatch(t, apiKey, fits.json().jobId);
    expect(body.stats).toEqual({ total: 99, succeeded: 0, failed: 99 });
    expect(body.results).toHaveLength(99);
    // Every video unknown: only the base credit is charged.
    expect((await get(t, apiKey, '/v1/account')).json().credits).toBe(99);
  });

  it('documents the vidsite routes once in OpenAPI, naming the aliases', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const path of ['/v1/vidsite/transcript/batch', '/v1/vidsite/video/batch']) {
      expect(spec.paths[path].post.description).toContain(path.replace('vidsite', 'youtube'));
      expect(spec.paths[path.replace('vidsite', 'youtube')]).toBeUndefined();
    }
    expect(spec.paths['/v1/vidsite/batch/{jobId}'].get.description).toContain('/v1/youtube/batch/{jobId}');
    expect(spec.paths['/v1/youtube/batch/{jobId}']).toBeUndefined();
  });
});

describe('a platform that blocks every request', () => {
  let blocked: YouTubeReplay;
  let b: TestApp;
  let bProcessing: JobProcessing;
  beforeAll(async () => {
    blocked = await startBlockedYouTube();
    b = await createTestApp({
      UNFURL_UPSTREAM_YOUTUBE: blocked.url,
      UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
      UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
      UNFURL_JOB_POLL_MS: '50',
      UNFURL_JOB_BACKOFF_MS: '20',
      UNFURL_JOB_MAX_ATTEMPTS: '2',
    });
    bProcessing = await startJobProcessing(b.services, quietLogger);
  });
  afterAll(async () => {
    await bProcessing?.stop();
    await b?.close();
    await blocked?.close();
  });

  it('fails the job after its attempts (upstream_error) and charges nothing', async () => {
    const { apiKey } = await b.register();
    const res = await post(b, apiKey, '/v1/vidsite/transcript/batch', { videoIds: [VIDEO, AGE] });
    expect(res.statusCode).toBe(202);
    const body = await waitForBatch(b, apiKey, res.json().jobId);
    expect(body).toMatchObject({ status: 'failed', results: [], error: expect.stringContaining('platform') });
    const summary = (await get(b, apiKey, `/v1/jobs/${res.json().jobId}`)).json();
    expect(summary).toMatchObject({ attempts: 2, credits: 0 });
    expect((await get(b, apiKey, '/v1/account')).json().credits).toBe(100);
  });
});

describe('inOrder', () => {
  it('runs at most `concurrency` at once, never more than `window` ahead, and emits in index order', async () => {
    let active = 0;
    let maxActive = 0;
    let maxAhead = 0;
    const emitted: number[] = [];
    const delays = [40, 5, 5, 30, 1, 1, 20, 1, 1, 1, 10, 1, 1, 1, 1, 1, 1, 1, 1, 1];
    await inOrder(
      delays.length,
      3,
      6,
      async (i) => {
        active++;
        maxActive = Math.max(maxActive, active);
        maxAhead = Math.max(maxAhead, i - emitted.length);
        await new Promise((r) => setTimeout(r, delays[i]));
        active--;
        return i * 10;
      },
      (value, i) => {
        expect(value).toBe(i * 10);
        emitted.push(i);
      },
    );
    expect(emitted).toEqual(delays.map((_, i) => i));
    expect(maxActive).toBe(3);
    expect(maxAhead).toBeLessThan(6);
  });

  it('stops at the first failure without a stray rejection', async () => {
    const seen: number[] = [];
    await expect(
      inOrder(
        10,
        4,
        8,
        async (i) => {
          if (i === 2 || i === 3) throw new Error(`boom ${i}`);
          return i;
        },
        (v) => void seen.push(v),
      ),
    ).rejects.toThrow('boom 2');
    expect(seen).toEqual([0, 1]);
  });
});

describe('the video_batch kind on a stand-in platform', () => {
  /** The kind over a platform whose video() the test steers, and items kept in memory. */
  function setup(video: BatchPlatform['video']) {
    const stored: unknown[] = [];
    const appends: number[] = [];
    const items = {
      async clear() {
        stored.length = 0;
      },
      async append(_jobId: string, firstSeq: number, batch: unknown[]) {
        expect(firstSeq).toBe(stored.length); // contiguous, in order
        appends.push(batch.length);
        stored.push(...batch);
      },
    } as unknown as JobItems;
    const unused = () => Promise.reject(new Error('not used'));
    const registry = new JobRegistry();
    registerVideoBatches({
      registry,
      items,
      youtube: { video, transcript: unused, playlistVideos: unused, channelVideos: unused },
    });
    const kind = registry.require('video_batch');
    const controller = new AbortController();
    const ctx: JobContext = {
      jobId: 'job_test',
      accountId: 'acc_test',
      attempt: 1,
      signal: controller.signal,
      cancelled: false,
      holdMore: async () => {},
    };
    const run = (videoIds: string[]) => kind.run(ctx, { videoIds });
    return { kind, run, stored, appends, controller };
  }
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `vid${String(i).padStart(8, '0')}`);
  const meta = (id: string) => ({ id }) as unknown as Awaited<ReturnType<BatchPlatform['video']>>;

  it(`fetches ${BATCH_VIDEO_CONCURRENCY} videos at once, writes results in input order in small batches`, async () => {
    let active = 0;
    let maxActive = 0;
    const { run, stored, appends, kind } = setup(async (id) => {
      active++;
      maxActive = Math.max(maxActive, active);
      await new Promise((r) => setTimeout(r, Number(id.slice(-2)) % 7));
      active--;
      if (id.endsWith('3')) throw new AppError('not_found', `Video ${id} not found`);
      if (id.endsWith('7')) throw new TypeError('a bug');
      return meta(id);
    });
    const videoIds = ids(45);
    const result = await run(videoIds);
    expect(maxActive).toBe(BATCH_VIDEO_CONCURRENCY);
    expect(result).toEqual({ stats: { total: 45, succeeded: 36, failed: 9 } });
    expect(kind.cost({ videoIds }, result)).toBe(37);
    expect(kind.estimate({ videoIds })).toBe(46);
    expect(stored.map((r) => (r as { videoId: string }).videoId)).toEqual(videoIds);
    expect(stored[3]).toEqual({
      videoId: videoIds[3],
      error: { error: 'not_found', message: expect.any(String) },
      errorCode: 'not_found',
    });
    // An unexpected fault says nothing of its internals.
    expect(stored[7]).toEqual({
      videoId: videoIds[7],
      error: { error: 'internal_error', message: 'internal error while fetching this video' },
      errorCode: 'internal_error',
    });
    expect(stored[0]).toEqual({ videoId: videoIds[0], video: { id: videoIds[0] } });
    expect(Math.max(...appends)).toBeLessThanOrEqual(10);
  });

  it('stops at once when the job is cut short: no video started after, nothing left stored', async () => {
    const started: string[] = [];
    const { run, stored, controller } = setup((id) => {
      started.push(id);
      // Never answers: only the abort ends the job.
      return new Promise(() => {});
    });
    const job = run(ids(20));
    await new Promise((r) => setTimeout(r, 20));
    const reason = new AppError('upstream_error', 'job timed out');
    controller.abort(reason);
    await expect(job).rejects.toBe(reason);
    expect(classify(reason).retryable).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(started).toHaveLength(BATCH_VIDEO_CONCURRENCY);
    expect(stored).toEqual([]);
  });

  it('every video failing upstream is the job failing (retryable); some succeeding is not', async () => {
    const blocked = setup(async () => {
      throw new AppError('upstream_error', 'blocked');
    });
    const err = await blocked.run(ids(3)).catch((e: unknown) => e);
    expect(classify(err)).toMatchObject({ retryable: true, code: 'upstream_error' });
    expect(blocked.stored).toEqual([]);
    const partly = setup(async (id) => {
      if (id.endsWith('1')) throw new AppError('upstream_error', 'blocked');
      return meta(id);
    });
    expect(await partly.run(ids(3))).toEqual({ stats: { total: 3, succeeded: 2, failed: 1 } });
  });
});
