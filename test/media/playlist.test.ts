// A media URL that answers an HLS playlist whose segment is a file on the server's own disk — served
// as video/mp4 or audio/mpeg, or behind a redirect to `.m3u8` — against OCR, describe mode=ocr and
// speech recognition: the job fails with invalid_request saying it is a playlist, the secret never
// shows in an answer, nothing is uploaded to the AI stand-in, and the hold is released.
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type OpenAiServer, startOpenAiServer } from '../support/openai-server.js';
import { waitForJob } from '../support/wait-for-job.js';
import { type AiApp, balance, ledgerOf, startAiApp } from './ai/harness.js';
import {
  captionVideo,
  haveFfmpeg,
  haveTesseract,
  type MediaServer,
  startMediaServer,
  toneMp3,
} from './ai/media.js';

const tools = haveFfmpeg() && haveTesseract();
// Whole jobs with real ffmpeg and Tesseract on a shared machine.
vi.setConfig({ testTimeout: 120_000 });

const SECRET_TEXT = 'SECRET LEDGER';
const SECRET_HZ = 523;

let ai: OpenAiServer;
let media: MediaServer;
let main: AiApp;
let secrets: string;

/** What would show that the secret leaked (the stand-in names the tones it hears; ids are lower-case). */
const LEAK = /SECRET|LEDGER|tone \d+ Hz/;

/** An HLS playlist of one segment: a file on this machine, outside anything served. */
const playlist = (target: string) =>
  `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:2.0,\nfile://${target}\n#EXT-X-ENDLIST\n`;

beforeAll(async () => {
  if (!tools) return;
  secrets = await mkdtemp(path.join(os.tmpdir(), 'unfurl-secrets-'));
  const text = path.join(secrets, 'text.mp4');
  const sound = path.join(secrets, 'sound.mp3');
  await captionVideo(text, [{ text: SECRET_TEXT, startSec: 0, endSec: 2 }], 2);
  await toneMp3(sound, 2, [{ startSec: 0.2, endSec: 1.8, hz: SECRET_HZ }]);
  ai = await startOpenAiServer();
  media = await startMediaServer();
  // Served by extension: .mp4 as video/mp4, .mp3 as audio/mpeg, .m3u8 as application/octet-stream.
  for (const [name, target] of [
    ['text-list.mp4', text],
    ['text-list.m3u8', text],
    ['sound-list.mp3', sound],
    ['sound-list.m3u8', sound],
  ] as const) {
    await writeFile(path.join(media.dir, name), playlist(target));
  }
  media.redirects.set('text-hop.mp4', 'text-list.m3u8');
  media.redirects.set('sound-hop.mp3', 'sound-list.m3u8');
  // The secret video itself, served as what it is: the control that shows OCR reads it.
  await copyFile(text, path.join(media.dir, 'shown.mp4'));
  main = await startAiApp(ai);
}, 120_000);

afterAll(async () => {
  await main?.close();
  await ai?.close();
  await media?.close();
  if (secrets) await rm(secrets, { recursive: true, force: true });
});

beforeEach(() => ai?.reset());

/** The job failed as a refused playlist, showed nothing of the secret, and cost nothing. */
async function expectRefused(apiKey: string, pollUrl: string, jobId: string, hold: number) {
  const poll = await waitForJob(main.t, apiKey, pollUrl);
  expect(poll.status, JSON.stringify(poll)).toBe('failed');
  expect(poll.error).toMatch(/playlist/);
  expect(JSON.stringify(poll)).not.toMatch(LEAK);
  const job = (await main.t.call(apiKey, { method: 'GET', url: `/v1/jobs/${jobId}` })).json();
  expect(JSON.stringify(job)).not.toMatch(LEAK);
  expect((await main.t.services.jobs.records.get(jobId))?.error_code).toBe('invalid_request');
  expect(await ledgerOf(main.t, jobId)).toEqual([
    { type: 'hold', amount: -hold },
    { type: 'release', amount: hold },
  ]);
}

describe.skipIf(!tools)('an HLS playlist pointing at a local file', () => {
  it('control: the secret video served as itself is read by OCR', async () => {
    const { apiKey } = await main.t.register();
    const res = await main.t.call(apiKey, {
      method: 'POST',
      url: '/v1/video/ocr',
      payload: { url: media.urlOf('shown.mp4'), format: 'text' },
    });
    const poll = await waitForJob(main.t, apiKey, `/v1/video/ocr/${res.json().jobId}`);
    expect(poll.content).toBe(SECRET_TEXT);
  });

  it('POST /v1/video/ocr: refused as a playlist, plain and behind a redirect to .m3u8', async () => {
    const { apiKey } = await main.t.register();
    for (const name of ['text-list.mp4', 'text-hop.mp4']) {
      const res = await main.t.call(apiKey, {
        method: 'POST',
        url: '/v1/video/ocr',
        payload: { url: media.urlOf(name) },
      });
      expect(res.statusCode, res.body).toBe(202);
      const { jobId } = res.json();
      await expectRefused(apiKey, `/v1/video/ocr/${jobId}`, jobId, 10);
    }
    expect(await balance(main.t, apiKey)).toBe(100);
  });

  it('POST /v1/video/describe mode=ocr: refused as a playlist, plain and behind a redirect', async () => {
    const { apiKey } = await main.t.register();
    for (const name of ['text-list.mp4', 'text-hop.mp4']) {
      const res = await main.t.call(apiKey, {
        method: 'POST',
        url: '/v1/video/describe',
        payload: { url: media.urlOf(name), mode: 'ocr', maxFrames: 2 },
      });
      expect(res.statusCode, res.body).toBe(202);
      const { jobId } = res.json();
      await expectRefused(apiKey, `/v1/video/describe/${jobId}`, jobId, 7);
    }
    expect(ai.chats).toHaveLength(0);
    expect(await balance(main.t, apiKey)).toBe(100);
  });

  it('speech recognition (mode=generate): refused as a playlist, nothing uploaded to the provider', async () => {
    const { apiKey } = await main.t.register();
    for (const name of ['sound-list.mp3', 'sound-hop.mp3']) {
      const res = await main.t.call(apiKey, {
        method: 'GET',
        url: `/v1/transcript?url=${encodeURIComponent(media.urlOf(name))}&mode=generate`,
      });
      expect(res.statusCode, res.body).toBe(202);
      const { jobId } = res.json();
      await expectRefused(apiKey, `/v1/transcript/${jobId}`, jobId, 20);
    }
    expect(ai.uploads).toHaveLength(0);
    expect(ai.log).toHaveLength(0);
    expect(await balance(main.t, apiKey)).toBe(100);
  });
});
