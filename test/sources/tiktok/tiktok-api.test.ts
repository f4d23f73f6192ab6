// The short-video site end to end: GET /v1/transcript on a real app, UNFURL_UPSTREAM_TIKTOK pointing
// at a loopback replay that answers plain clients with the WAF proof-of-work page first, serves the
// captured video page once it is solved, its caption files (constructed WebVTT) and media files; short
// links followed; media located and downloaded through services.downloader.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../../support/app.js';
import { useReplayApp } from '../../support/replay-app.js';
import {
  CAPTURED_ID,
  GONE_ID,
  LOGIN_ID,
  NO_CAPTIONS_ID,
  PRIVATE_ID,
  startTikTokReplay,
  type TikTokReplay,
} from './replay.js';

let replay: TikTokReplay;
let t: TestApp;
let key: string;

useReplayApp({ upstream: 'TIKTOK', start: startTikTokReplay, clearRequests: true }, (stage) => {
  ({ replay, t, key } = stage);
});

const videoUrl = (id: string, user = 'illojuan') => `https://www.tiktok.com/@${user}/video/${id}`;
const transcript = (url: string, extra = '') =>
  t.call(key, { method: 'GET', url: `/v1/transcript?url=${encodeURIComponent(url)}${extra}` });
const balance = async () =>
  (await t.call(key, { method: 'GET', url: '/v1/account' })).json().credits as number;

describe('GET /v1/transcript on the short-video site', () => {
  it('solves the WAF challenge, then answers the original-language (ASR) track, billed 1 credit', async () => {
    const before = await balance();
    const res = await transcript(videoUrl(CAPTURED_ID));
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(res.json()).toEqual({
      lang: 'es',
      availableLangs: ['en', 'es'],
      content: [
        { text: 'La nueva locurilla de fin de año', offset: 120, duration: 2360, lang: 'es' },
        { text: 'me he puesto un uniforme de trabajo.', offset: 2480, duration: 2560, lang: 'es' },
        { text: 'Mi menú Mystery King ya está disponible.', offset: 5600, duration: 3300, lang: 'es' },
      ],
    });
    expect(await balance()).toBe(before - 1);
    expect(replay.state.issued).toBeGreaterThanOrEqual(1);
    expect(replay.state.solved).toBeGreaterThanOrEqual(1);
    const pages = replay.requests.filter((r) => r.path.startsWith('/@'));
    expect(pages).toHaveLength(2); // the challenge, then the page with the answer
    expect(pages[1]!.cookie).toMatch(/_wafchallengeid=[A-Za-z0-9+/=]+; waforiginalreid=constructed-rs/);
    const caption = replay.requests.find((r) => r.path.includes('0b8bf558f39e4a639dadf063da88f7da'));
    expect(caption?.referer).toBe(videoUrl(CAPTURED_ID));
    expect(caption?.cookie).toContain('tt_chain_token=constructed-chain-token');
  });

  it('answers a translation in the language asked for, as text or merged chunks, from the cache', async () => {
    const en = await transcript(videoUrl(CAPTURED_ID), '&lang=en&text=true');
    expect(en.statusCode).toBe(200);
    expect(en.json()).toEqual({
      lang: 'en',
      availableLangs: ['en', 'es'],
      content:
        'The new end-of-year madness I put on a work uniform & all. My Mystery King menu is available now.',
    });
    const merged = await transcript(videoUrl(CAPTURED_ID), '&lang=en&chunkSize=70');
    expect(merged.json().content.map((c: { text: string }) => c.text)).toEqual([
      'The new end-of-year madness I put on a work uniform & all.',
      'My Mystery King menu is available now.',
    ]);
    expect(replay.requests.filter((r) => r.path.startsWith('/@'))).toEqual([]); // the page came from the cache
  });

  it('follows vm./vt. and /t/ short links to the video', async () => {
    for (const url of ['https://vm.tiktok.com/ZMshort1/', 'https://www.tiktok.com/t/ZTshort2/']) {
      const res = await transcript(url, '&mode=native');
      expect([url, res.statusCode, res.json().lang]).toEqual([url, 200, 'es']);
    }
    const hops = replay.requests.filter((r) => r.path === '/ZMshort1/' || r.path === '/t/ZTshort2/');
    expect(hops.map((h) => [h.method, h.ua])).toEqual([
      ['HEAD', 'facebookexternalhit/1.1'],
      ['HEAD', 'facebookexternalhit/1.1'],
    ]);
  });

  it('maps a video without captions to 404 (native) and speech recognition (auto, generate)', async () => {
    const before = await balance();
    const native = await transcript(videoUrl(NO_CAPTIONS_ID), '&mode=native');
    expect([native.statusCode, native.json().error]).toEqual([404, 'transcript_unavailable']);
    for (const mode of ['auto', 'generate']) {
      const res = await transcript(videoUrl(NO_CAPTIONS_ID), `&mode=${mode}`);
      expect([mode, res.statusCode, res.json().error]).toEqual([mode, 503, 'provider_unavailable']);
    }
    expect(await balance()).toBe(before);
  });

  it('maps private and login-walled posts to 403 and removed ones to 404 in every mode, charging nothing', async () => {
    const before = await balance();
    for (const mode of ['native', 'auto', 'generate']) {
      const priv = await transcript(videoUrl(PRIVATE_ID), `&mode=${mode}`);
      expect([mode, priv.statusCode, priv.json().error]).toEqual([mode, 403, 'forbidden']);
      const gone = await transcript(videoUrl(GONE_ID), `&mode=${mode}`);
      expect([mode, gone.statusCode, gone.json().error]).toEqual([mode, 404, 'not_found']);
      const login = await transcript(videoUrl(LOGIN_ID), `&mode=${mode}`);
      expect([mode, login.statusCode, login.json().error]).toEqual([mode, 403, 'forbidden']);
    }
    expect(await balance()).toBe(before);
  });

  it('answers 502, unbilled, when the challenge keeps coming back after an answer', async () => {
    const before = await balance();
    replay.state.waf = 'always';
    try {
      const res = await transcript(videoUrl('7400000000000000777'), '&mode=native');
      expect([res.statusCode, res.json().error]).toEqual([502, 'upstream_error']);
      expect(res.json().message).toMatch(/WAF challenge/);
    } finally {
      replay.state.waf = true;
    }
    expect(replay.requests.filter((r) => r.path.startsWith('/@'))).toHaveLength(2); // one answer tried
    expect(await balance()).toBe(before);
  });
});

describe('media of the short-video site', () => {
  it('is located (lowest bitrate first, page cookie and referer kept) and downloads through the override', async () => {
    const { ref, location } = await t.services.platforms.locate(videoUrl(NO_CAPTIONS_ID, 'constructed.user'));
    expect(ref).toEqual({
      platform: 'tiktok',
      id: NO_CAPTIONS_ID,
      url: videoUrl(NO_CAPTIONS_ID, 'constructed.user'),
    });
    expect(location).toMatchObject({
      upstream: 'tiktok',
      url: 'https://v16-webapp-prime.tiktok.com/video/tos/constructed/quiet-540/?mime_type=video_mp4&expire=1',
      durationSec: 9,
      kind: 'video',
      headers: {
        referer: expect.stringMatching(new RegExp(`/video/${NO_CAPTIONS_ID}$`)), // the page the cookie came with
        cookie: expect.stringContaining('tt_chain_token='),
      },
    });
    const got = await t.services.scratch.with('tiktok-test', async (dir) => {
      const file = await t.services.downloader.download(location, dir);
      expect(fs.statSync(file.path).size).toBe(64 * 1024);
      return file;
    });
    expect(got).toMatchObject({ bytes: 64 * 1024, contentType: 'video/mp4' });
    expect(fs.existsSync(got.path)).toBe(false); // the scratch dir is gone after the job
  });

  it('refuses to locate private and removed posts', async () => {
    await expect(t.services.platforms.locate(videoUrl(PRIVATE_ID))).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(t.services.platforms.locate(videoUrl(GONE_ID))).rejects.toMatchObject({ code: 'not_found' });
  });
});
