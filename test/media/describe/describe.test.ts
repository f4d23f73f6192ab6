// Describe end to end: POST /v1/video/describe on a generated video served on loopback → the job
// (real ffmpeg key frames, real HTTP to the OpenAI-compatible stand-in, which decodes every image
// it gets) → GET /v1/video/describe/{jobId}. mode=ocr reads the captions with real Tesseract.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OpenAiServer } from '../../support/openai-server.js';
import { waitForJob } from '../../support/wait-for-job.js';
import { type AiApp, balance, ledgerOf, startAiApp, useAiMediaApp } from '../ai/harness.js';
import {
  captionVideo,
  haveFfmpeg,
  haveTesseract,
  type MediaServer,
  type Tone,
  toneVideo,
} from '../ai/media.js';

const ffmpeg = haveFfmpeg();
// Each test runs whole jobs (ffmpeg, several HTTP round trips): room for a loaded CI machine.
vi.setConfig({ testTimeout: 120_000 });

const tesseract = ffmpeg && haveTesseract();

const TONES: Tone[] = [
  { startSec: 0.5, endSec: 2, hz: 440 },
  { startSec: 4, endSec: 5, hz: 660 },
];

let ai: OpenAiServer;
let media: MediaServer;
let main: AiApp;

useAiMediaApp(
  ffmpeg,
  async (media) => {
    // 9 s in three scenes (test pattern, red, blue), 1280×720, with two tones as its sound.
    await toneVideo(path.join(media.dir, 'clip.mp4'), { durationSec: 9, tones: TONES });
    await captionVideo(
      path.join(media.dir, 'captions.mp4'),
      [
        { text: 'HELLO WORLD', startSec: 0, endSec: 4 },
        { text: 'SECOND CAPTION', startSec: 4, endSec: 8 },
      ],
      8,
    );
  },
  (stage) => {
    ({ ai, media, main } = stage);
  },
);

const submit = (app: AiApp, key: string, body: object) =>
  app.t.call(key, { method: 'POST', url: '/v1/video/describe', payload: body });

describe.skipIf(!ffmpeg)('POST /v1/video/describe', () => {
  it('sends maxFrames JPEGs at maxResolution with the prompt; answers the description and frame times', async () => {
    const { apiKey } = await main.t.register();
    const res = await submit(main, apiKey, {
      url: media.urlOf('clip.mp4'),
      prompt: 'Which colours fill the screen?',
      maxFrames: 4,
      maxResolution: 320,
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.headers['x-credits-held']).toBe('9');
    const { jobId } = res.json();
    const poll = await waitForJob(main.t, apiKey, `/v1/video/describe/${jobId}`);
    expect(poll.error).toBeNull();
    expect(poll.status).toBe('completed');
    expect(poll.data.description).toBe('A video shown as 4 frames.');
    expect(poll.data).not.toHaveProperty('transcript');
    const frames = poll.data.frames as Array<{ timeMs: number; width: number; height: number }>;
    expect(frames).toHaveLength(4);
    for (const f of frames) expect(f).toMatchObject({ width: 320, height: 180 });
    const times = frames.map((f) => f.timeMs);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // Where the picture changes: every scene is seen.
    expect(times.some((t) => t < 3000)).toBe(true);
    expect(times.some((t) => t >= 3000 && t < 6000)).toBe(true);
    expect(times.some((t) => t >= 6000 && t <= 9000)).toBe(true);

    // What the vision model received: 4 decoded JPEGs of 320×180, the prompt, the frame times.
    expect(ai.chats).toHaveLength(1);
    const call = ai.chats[0]!;
    expect(call.body.model).toBe('gpt-4o-mini');
    expect(call.authorization).toBe('Bearer sk-test-key');
    expect(call.images.map((i) => [i.mime, i.width, i.height, i.detail])).toEqual(
      Array(4).fill(['image/jpeg', 320, 180, 'low']),
    );
    expect(call.text).toContain('Which colours fill the screen?');
    for (const [i, t] of times.entries()) {
      const s = Math.floor(t / 1000);
      expect(call.text).toContain(`Frame ${i + 1} at 00:${String(s).padStart(2, '0')}`);
    }
    expect(call.text).not.toContain('Transcript');
    expect(ai.uploads).toHaveLength(0);
    // 5 + 4 frames.
    expect(await balance(main.t, apiKey)).toBe(91);
  });

  it('includeTranscript: speech recognised (no captions on a file), given to the model and returned; +2 per started minute', async () => {
    const { apiKey } = await main.t.register();
    const res = await submit(main, apiKey, {
      url: media.urlOf('clip.mp4'),
      maxFrames: 2,
      maxResolution: 1024,
      includeTranscript: true,
    });
    const { jobId } = res.json();
    const poll = await waitForJob(main.t, apiKey, `/v1/video/describe/${jobId}`);
    expect(poll.error).toBeNull();
    expect(poll.data.description).toBe('A video shown as 2 frames, with its transcript.');
    expect(poll.data.transcript.lang).toBe('en');
    expect(poll.data.transcript.content.map((c: { text: string }) => c.text)).toEqual([
      'tone 440 Hz.',
      'tone 660 Hz.',
    ]);
    expect(Math.abs(poll.data.transcript.content[1].offset - 4000)).toBeLessThan(150);
    expect(ai.uploads).toHaveLength(1);
    expect(ai.uploads[0]).toMatchObject({ codec: 'mp3', sampleRate: 16000, channels: 1 });
    const call = ai.chats[0]!;
    expect(call.images.map((i) => [i.width, i.height, i.detail])).toEqual(Array(2).fill([1024, 576, 'auto']));
    expect(call.text).toContain('[00:04] tone 660 Hz.');
    // Hold 5 + 2, then 2 more for the minute of speech; cost 5 + 2 + 2.
    expect(await ledgerOf(main.t, jobId)).toEqual([
      { type: 'hold', amount: -7 },
      { type: 'hold', amount: -2 },
      { type: 'release', amount: 9 },
      { type: 'settled', amount: -9 },
    ]);
  });

  it('a vision provider that fails: the job fails clearly and costs nothing', async () => {
    const { apiKey } = await main.t.register();
    ai.failWith = (route) =>
      route === '/v1/chat/completions'
        ? { status: 500, body: { error: { message: 'model crashed' } } }
        : null;
    const { jobId } = (await submit(main, apiKey, { url: media.urlOf('clip.mp4'), maxFrames: 1 })).json();
    const poll = await waitForJob(main.t, apiKey, `/v1/video/describe/${jobId}`);
    expect(poll).toMatchObject({ status: 'failed', data: null });
    expect(poll.error).toBe('The vision provider failed 4 times (last: HTTP 500: model crashed)');
    expect(await balance(main.t, apiKey)).toBe(100);
  });

  it('checks every field at submit (400 naming it) and holds nothing', async () => {
    const { apiKey } = await main.t.register();
    const url = media.urlOf('clip.mp4');
    for (const [body, param] of [
      [{ url, maxFrames: 21 }, 'maxFrames'],
      [{ url, maxFrames: 0 }, 'maxFrames'],
      [{ url, maxResolution: 63 }, 'maxResolution'],
      [{ url, maxResolution: 2049 }, 'maxResolution'],
      [{ url, mode: 'summary' }, 'mode'],
      [{ url, includeTranscript: 'yes' }, 'includeTranscript'],
      [{ url: 'ftp://example.com/a.mp4' }, 'url'],
      // Not a video of any platform, nor a media file.
      [{ url: 'https://example.com/about' }, 'url'],
      [{ maxFrames: 2 }, 'url'],
      [{ url, webhookUrl: 'not a url' }, 'webhookUrl'],
    ] as const) {
      const res = await submit(main, apiKey, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().details, JSON.stringify(body)).toBe(param);
    }
    expect(await balance(main.t, apiKey)).toBe(100);
  });
});

describe.skipIf(!ffmpeg)('describe without a provider', () => {
  let bare: AiApp;
  beforeAll(async () => {
    bare = await startAiApp(null);
  });
  afterAll(async () => bare?.close());

  it('mode=describe is a 503 at submit, nothing held', async () => {
    const { apiKey } = await bare.t.register();
    const res = await submit(bare, apiKey, { url: media.urlOf('clip.mp4') });
    expect(res.statusCode).toBe(503);
    expect(res.json().error).toBe('provider_unavailable');
    expect(await balance(bare.t, apiKey)).toBe(100);
  });

  it.skipIf(!tesseract)('mode=ocr reads the text shown on the key frames (no AI needed)', async () => {
    const { apiKey } = await bare.t.register();
    const res = await submit(bare, apiKey, { url: media.urlOf('captions.mp4'), mode: 'ocr', maxFrames: 4 });
    expect(res.statusCode, res.body).toBe(202);
    const poll = await waitForJob(bare.t, apiKey, `/v1/video/describe/${res.json().jobId}`);
    expect(poll.error).toBeNull();
    const lines = (poll.data.description as string).split('\n');
    // Each caption once, after the time of the first frame that shows it.
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[00:0[0-3]\] HELLO WORLD$/);
    expect(lines[1]).toMatch(/^\[00:0[4-7]\] SECOND CAPTION$/);
    expect(poll.data.frames.length).toBeGreaterThanOrEqual(2);
    expect(await balance(bare.t, apiKey)).toBe(100 - 5 - poll.data.frames.length);
  });
});
