// Platforms without captions handed to speech recognition end to end: GET /v1/transcript (auto) on a
// short-video page and a microblog post → 202 → the transcript job locates the platform's media file,
// downloads it through the platform's upstream override (replay servers serving a generated video
// with tones), and the OpenAI-compatible stand-in transcribes it → poll.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AiApp, startAiApp } from '../../media/ai/harness.js';
import { haveFfmpeg, type Tone, toneVideo } from '../../media/ai/media.js';
import { type OpenAiServer, startOpenAiServer } from '../../support/openai-server.js';
import { waitForJob } from '../../support/wait-for-job.js';
import { NO_CAPTIONS_ID, startTikTokReplay, type TikTokReplay } from '../tiktok/replay.js';
import { startXReplay, type XReplay } from '../x/replay.js';

const ffmpeg = haveFfmpeg();
const TONES: Tone[] = [
  { startSec: 1, endSec: 3, hz: 440 },
  { startSec: 5, endSec: 7, hz: 660 },
];

let ai: OpenAiServer;
let tiktok: TikTokReplay;
let x: XReplay;
let app: AiApp;
let key: string;
let work: string;

beforeAll(async () => {
  if (!ffmpeg) return;
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-handoff-'));
  const file = path.join(work, 'clip.mp4');
  await toneVideo(file, { durationSec: 9, tones: TONES, width: 320, height: 240 });
  const video = fs.readFileSync(file);
  ai = await startOpenAiServer();
  tiktok = await startTikTokReplay();
  tiktok.state.media = video;
  x = await startXReplay();
  x.media.body = video;
  app = await startAiApp(ai, {
    UNFURL_UPSTREAM_TIKTOK: tiktok.url,
    UNFURL_UPSTREAM_X: x.url,
    UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
  });
  key = (await app.t.register()).apiKey;
}, 60_000);

afterAll(async () => {
  await app?.close();
  await ai?.close();
  await tiktok?.close();
  await x?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

const auto = (url: string) =>
  app.t.call(key, { method: 'GET', url: `/v1/transcript?url=${encodeURIComponent(url)}` });

describe.skipIf(!ffmpeg)('speech recognition of platform media', () => {
  it('a short-video page without captions: its media file, downloaded with the page cookie, is transcribed', async () => {
    const res = await auto(`https://www.tiktok.com/@constructed.user/video/${NO_CAPTIONS_ID}`);
    expect(res.statusCode, res.body).toBe(202);
    const poll = await waitForJob(app.t, key, `/v1/transcript/${res.json().jobId}`);
    expect(poll.error).toBeNull();
    expect(poll.data.content.map((c: { text: string }) => c.text)).toEqual(['tone 440 Hz.', 'tone 660 Hz.']);
    expect(Math.abs(poll.data.content[1].offset - 5000)).toBeLessThan(200);
    const media = tiktok.requests.filter((r) => r.path.startsWith('/video/tos/'));
    expect(media.length).toBeGreaterThanOrEqual(1);
    expect(media.every((r) => r.cookie.includes('tt_chain_token='))).toBe(true);
  });

  it('a microblog video post: its best MP4 is transcribed', async () => {
    const post = 'https://x.com/constructed_user/status/1790000000000000001';
    // The post has uploaded captions: auto answers them as they are; generate asks for recognition.
    expect((await auto(post)).statusCode).toBe(200);
    const gen = await app.t.call(key, {
      method: 'GET',
      url: `/v1/transcript?url=${encodeURIComponent(post)}&mode=generate`,
    });
    expect(gen.statusCode, gen.body).toBe(202);
    const poll = await waitForJob(app.t, key, `/v1/transcript/${gen.json().jobId}`);
    expect(poll.error).toBeNull();
    expect(poll.data.content.map((c: { text: string }) => c.text)).toEqual(['tone 440 Hz.', 'tone 660 Hz.']);
    expect(x.requests.some((r) => r.path.endsWith('/720x1280/high.mp4'))).toBe(true);
  });
});
