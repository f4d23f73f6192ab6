// OCR end to end: POST /v1/video/ocr with a direct file URL served on loopback → the job (real
// download, ffprobe, ffmpeg frames, tesseract) → GET /v1/video/ocr/{jobId}; credits held at
// acceptance, topped up after probing a long video, settled at 1 per started minute, released on failure.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateVideo } from '../../support/videos.js';
import { waitForJob } from '../../support/wait-for-job.js';
import { type AiApp, balance, ledgerOf, startAiApp } from '../ai/harness.js';
import { type MediaServer, startMediaServer } from '../ai/media.js';

const run = promisify(execFile);

let media: MediaServer;
let main: AiApp;

beforeAll(async () => {
  media = await startMediaServer();
  await generateVideo(media.dir, 'captions', {
    durationSec: 8,
    background: 'testsrc2',
    texts: [
      { text: 'Hello from Unfurl', startSec: 1, endSec: 3.5, style: 'box', size: 30 },
      { text: 'Second caption here', startSec: 4.5, endSec: 7, style: 'outline', font: 'serif', size: 30 },
    ],
  });
  // Long and tiny, nothing written: 11 and 16 minutes at 5 fps.
  for (const [name, seconds] of [
    ['eleven', 660],
    ['sixteen', 960],
  ] as const) {
    await run('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi'],
      ...['-i', `color=c=0x336699:s=96x64:r=5:d=${seconds}`, '-c:v', 'libx264', '-preset', 'ultrafast'],
      path.join(media.dir, `${name}.mp4`),
    ]);
  }
  await run('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=3'],
    path.join(media.dir, 'tone.mp3'),
  ]);
  await writeFile(path.join(media.dir, 'page.mp4'), '<html><body>not a video</body></html>');
  main = await startAiApp(null, { UNFURL_MEDIA_MAX_SECONDS: '900', UNFURL_OCR_CONCURRENCY: '1' });
}, 240_000);

afterAll(async () => {
  await main?.close();
  await media?.close();
});

const submit = (key: string, body: object) =>
  main.t.call(key, { method: 'POST', url: '/v1/video/ocr', payload: body });

// Real decoding and OCR on a 2-core machine shared with other suites: generous time limits.
describe('POST /v1/video/ocr', { timeout: 180_000 }, () => {
  it('reads the captions into segments (json by default), holds 10 credits and settles 1 per started minute', async () => {
    const { apiKey } = await main.t.register();
    const res = await submit(apiKey, { url: media.urlOf('captions.mp4') });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.headers['x-credits-held']).toBe('10');
    const { jobId } = res.json();
    const poll = await waitForJob(main.t, apiKey, `/v1/video/ocr/${jobId}`, { timeoutMs: 150_000 });
    expect(poll).toMatchObject({
      status: 'completed',
      attempts: 1,
      maxAttempts: 3,
      error: null,
      format: 'json',
    });
    expect(poll.durationMs).toBeGreaterThan(0);
    const texts = (poll.text as Array<{ text: string; startMs: number; endMs: number }>).map((s) => s.text);
    expect(texts).toEqual(['Hello from Unfurl', 'Second caption here']);
    const [first, second] = poll.text;
    expect(Math.abs(first.startMs - 1000)).toBeLessThanOrEqual(600);
    expect(Math.abs(first.endMs - 3500)).toBeLessThanOrEqual(600);
    expect(Math.abs(second.startMs - 4500)).toBeLessThanOrEqual(600);
    expect(Math.abs(second.endMs - 7000)).toBeLessThanOrEqual(600);
    expect(JSON.parse(poll.content)).toEqual(poll.text);
    expect(await ledgerOf(main.t, jobId)).toEqual([
      { type: 'hold', amount: -10 },
      { type: 'release', amount: 10 },
      { type: 'settled', amount: -1 },
    ]);
    expect(await balance(main.t, apiKey)).toBe(99);
    // Another account does not see it.
    const other = await main.t.register();
    const theirs = await main.t.call(other.apiKey, { method: 'GET', url: `/v1/video/ocr/${jobId}` });
    expect(theirs.statusCode).toBe(404);
  });

  it('renders srt, vtt and text', async () => {
    const { apiKey } = await main.t.register();
    const answers: Record<string, string> = {};
    for (const format of ['srt', 'vtt', 'text']) {
      const { jobId } = (await submit(apiKey, { url: media.urlOf('captions.mp4'), format })).json();
      const poll = await waitForJob(main.t, apiKey, `/v1/video/ocr/${jobId}`, { timeoutMs: 150_000 });
      expect(poll.status).toBe('completed');
      expect(poll.format).toBe(format);
      expect(poll.text).toHaveLength(2);
      answers[format] = poll.content;
    }
    expect(answers.srt).toMatch(/^1\n00:00:0\d,\d{3} --> 00:00:0\d,\d{3}\nHello from Unfurl\n\n2\n/);
    expect(answers.vtt).toMatch(/^WEBVTT\n\n00:00:0\d\.\d{3} --> 00:00:0\d\.\d{3}\nHello from Unfurl\n/);
    expect(answers.text).toBe('Hello from Unfurl\nSecond caption here');
    expect(await balance(main.t, apiKey)).toBe(97);
  });

  it('shows pending while queued; a long video tops the hold up and costs its started minutes', async () => {
    const { apiKey } = await main.t.register();
    // One OCR job at a time here (UNFURL_OCR_CONCURRENCY=1): the second waits for the first.
    const long = (await submit(apiKey, { url: media.urlOf('eleven.mp4') })).json().jobId;
    const queued = (await submit(apiKey, { url: media.urlOf('captions.mp4'), format: 'text' })).json().jobId;
    const waiting = (await main.t.call(apiKey, { method: 'GET', url: `/v1/video/ocr/${queued}` })).json();
    expect(waiting).toMatchObject({
      status: 'pending',
      attempts: 0,
      text: null,
      content: null,
      format: 'text',
    });
    const done = await waitForJob(main.t, apiKey, `/v1/video/ocr/${long}`, { timeoutMs: 150_000 });
    expect(done.status, done.error).toBe('completed');
    expect(done.text).toEqual([]);
    expect(await ledgerOf(main.t, long)).toEqual([
      { type: 'hold', amount: -10 },
      { type: 'hold', amount: -1 },
      { type: 'release', amount: 11 },
      { type: 'settled', amount: -11 },
    ]);
    expect((await waitForJob(main.t, apiKey, `/v1/video/ocr/${queued}`, { timeoutMs: 150_000 })).status).toBe(
      'completed',
    );
    expect(await balance(main.t, apiKey)).toBe(100 - 11 - 1);
  });

  it('fails cleanly and releases the credits: no video stream, not media, too long', async () => {
    const { apiKey } = await main.t.register();
    const cases = [
      ['tone.mp3', 'invalid_request', /url.*no video stream/],
      ['page.mp4', 'invalid_request', /media file/],
      ['sixteen.mp4', 'payload_too_large', /up to 900 s/],
    ] as const;
    for (const [name, code, message] of cases) {
      const { jobId } = (await submit(apiKey, { url: media.urlOf(name) })).json();
      const poll = await waitForJob(main.t, apiKey, `/v1/video/ocr/${jobId}`, { timeoutMs: 150_000 });
      expect(poll.status, name).toBe('failed');
      expect(poll.attempts, name).toBe(1);
      expect(poll.error, name).toMatch(message);
      expect(poll.text).toBeNull();
      const job = (await main.t.call(apiKey, { method: 'GET', url: `/v1/jobs/${jobId}` })).json();
      expect(job.error, name).toMatch(message);
      const row = await main.t.services.jobs.records.get(jobId);
      expect(row?.error_code, name).toBe(code);
      expect(await ledgerOf(main.t, jobId)).toEqual([
        { type: 'hold', amount: -10 },
        { type: 'release', amount: 10 },
      ]);
    }
    expect(await balance(main.t, apiKey)).toBe(100);
  });

  it('validates the body: url required, format one of json/text/srt/vtt, webhookUrl checked', async () => {
    const { apiKey } = await main.t.register();
    const noUrl = await submit(apiKey, { format: 'json' });
    expect(noUrl.statusCode).toBe(400);
    expect(noUrl.json().message).toMatch(/url/);
    const badFormat = await submit(apiKey, { url: media.urlOf('captions.mp4'), format: 'docx' });
    expect(badFormat.statusCode).toBe(400);
    expect(badFormat.json().message).toMatch(/format/);
    const badHook = await submit(apiKey, { url: media.urlOf('captions.mp4'), webhookUrl: 'ftp://x' });
    expect(badHook.statusCode).toBe(400);
    expect(badHook.json().details).toBe('webhookUrl');
    const notUrl = await submit(apiKey, { url: 'not a url' });
    expect(notUrl.statusCode).toBe(400);
    expect(await balance(main.t, apiKey)).toBe(100);
  });
});
