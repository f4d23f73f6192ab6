// Blocking, the platform's usual way of failing: two proxies in UNFURL_PROXY_URLS, the first one's exit
// blocked (bot check on innertube, reCAPTCHA page elsewhere), the second reaching the replay server —
// which also shows the EU consent page until the consent cookie is sent. Requests succeed, billed
// once, and the blocked exit, benched for the platform, gets no more of them; with every exit blocked
// they fail (502, then 503 with Retry-After at once while every exit is benched) and cost nothing.
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { type LoopbackProxy, startConnectProxy } from '../../support/loopback.js';
import { startBlockedYouTube, startYouTubeReplay, type YouTubeReplay } from '../../support/youtube-replay.js';

const VIDEO = 'GJLlxj_dtq8';
let replay: YouTubeReplay;
let blocked: YouTubeReplay;
let blockedExit: LoopbackProxy;
let blockedExit2: LoopbackProxy;
let goodExit: LoopbackProxy;
let t: TestApp;
let allBlocked: TestApp;

beforeAll(async () => {
  replay = await startYouTubeReplay({ consent: true });
  blocked = await startBlockedYouTube();
  blockedExit = await startConnectProxy(() => `127.0.0.1:${blocked.port}`);
  blockedExit2 = await startConnectProxy(() => `127.0.0.1:${blocked.port}`);
  goodExit = await startConnectProxy();
  const env = {
    UNFURL_UPSTREAM_YOUTUBE: replay.url,
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
    // Longer than the file runs: a blocked exit stays benched throughout.
    UNFURL_PROXY_BENCH_MS: '60000',
  };
  t = await createTestApp({ ...env, UNFURL_PROXY_URLS: `${blockedExit.url},${goodExit.url}` });
  allBlocked = await createTestApp({ ...env, UNFURL_PROXY_URLS: `${blockedExit.url},${blockedExit2.url}` });
});

afterAll(async () => {
  await t?.close();
  await allBlocked?.close();
  for (const s of [blockedExit, blockedExit2, goodExit, blocked, replay]) await s?.close();
});

async function settled(app: TestApp, apiKey: string) {
  const usage = (await app.call(apiKey, { method: 'GET', url: '/v1/account/usage?type=settled' })).json();
  return usage.transactions as Array<{ amount: number }>;
}

describe('proxy rotation on blocks', () => {
  it('retries a bot-checked player call through the next proxy, and keeps the blocked one benched', async () => {
    const { apiKey } = await t.register();
    const res = await t.call(apiKey, {
      method: 'GET',
      url: `/v1/transcript?url=https://youtu.be/${VIDEO}&lang=en`,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().content).toHaveLength(3);
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(res.headers['x-credits-remaining']).toBe('99');
    expect(await settled(t, apiKey)).toEqual([expect.objectContaining({ amount: -1 })]);
    // The blocked exit answered the bot check to the player call once; benched for the platform,
    // it never saw the timedtext call (in turn, it would have had it).
    expect(blocked.count('/youtubei/v1/player')).toBe(1);
    expect(blocked.count('/api/timedtext')).toBe(0);
    expect(replay.count('/youtubei/v1/player')).toBe(1);
    expect(replay.count('/api/timedtext')).toBe(1);
    // (Tunnels are kept alive, so one CONNECT per exit may carry several calls.)
    expect(blockedExit.connects.length).toBeGreaterThanOrEqual(1);
    expect(goodExit.connects.length).toBeGreaterThanOrEqual(1);
  });

  it('answers a captcha-walled timedtext through the next proxy', async () => {
    // A fresh app: the blocked exit is in the turn again, and the timedtext call is its first.
    const fresh = await createTestApp({
      UNFURL_UPSTREAM_YOUTUBE: replay.url,
      UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
      UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
      UNFURL_PROXY_URLS: `${goodExit.url},${blockedExit.url}`,
    });
    try {
      const { apiKey } = await fresh.register();
      const before = blocked.count('/api/timedtext');
      const res = await fresh.call(apiKey, {
        method: 'GET',
        url: `/v1/transcript?url=https://youtu.be/${VIDEO}&lang=en`,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().content).toHaveLength(3);
      expect(blocked.count('/api/timedtext') - before).toBe(1);
      expect(res.headers['x-credits-charged']).toBe('1');
    } finally {
      await fresh.close();
    }
  });

  it('passes the EU consent page with the consent cookie (and captcha pages on the way)', async () => {
    const { apiKey } = await t.register();
    const res = await t.call(apiKey, { method: 'GET', url: `/v1/vidsite/video?id=${VIDEO}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ likeCount: 43864, uploadDate: '2018-08-02T13:00:08.000Z' });
    const watches = replay.requests.filter((r) => r.path === '/watch').map((r) => String(r.headers.cookie));
    expect(watches).toHaveLength(2);
    expect(watches[0]).toBe('SOCS=CAI; CONSENT=YES+cb');
    expect(watches[1]).toContain('CONSENT=YES+cb.20210328-17-p0.de+FX+119');
    expect(res.headers['x-credits-charged']).toBe('1');
  });

  it('answers 502 upstream_error when every exit is blocked, then 503 with Retry-After at once; never billed', async () => {
    const { apiKey } = await allBlocked.register();
    const before = blocked.requests.length;
    const res = await allBlocked.call(apiKey, {
      method: 'GET',
      url: `/v1/vidsite/transcript?videoId=${VIDEO}&lang=de`,
    });
    // The first player client finds every exit blocked: 502; the second finds every exit benched: 503.
    expect([502, 503]).toContain(res.statusCode);
    expect(res.headers['x-credits-charged']).toBeUndefined();
    // Each exit was tried once, by the first player client; nothing since.
    const calls = blocked.requests.slice(before).filter((r) => r.path === '/youtubei/v1/player');
    expect(calls).toHaveLength(2);

    const started = performance.now();
    const again = await allBlocked.call(apiKey, {
      method: 'GET',
      url: `/v1/vidsite/transcript?videoId=${VIDEO}&lang=de`,
    });
    expect(performance.now() - started).toBeLessThan(500);
    expect(again.statusCode).toBe(503);
    expect(again.json().error).toBe('service_unavailable');
    expect(again.json().message).toMatch(/Every proxy is benched for youtube/);
    expect(Number(again.headers['retry-after'])).toBeGreaterThanOrEqual(55);
    expect(Number(again.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(again.headers['x-credits-charged']).toBeUndefined();
    expect(blocked.requests.slice(before).filter((r) => r.path === '/youtubei/v1/player')).toHaveLength(2);
    expect(await settled(allBlocked, apiKey)).toEqual([]);
  });
});
