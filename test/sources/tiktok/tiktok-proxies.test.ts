// The short-video site's walls on the health-aware path: two proxies, the first one's exit walled
// (every request answered with the "Verify to continue" page), the second reaching the replay. The
// request answers 200, billed once, and the walled exit — benched for the platform — gets no more.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { type Loopback, type LoopbackProxy, startConnectProxy, startServer } from '../../support/loopback.js';
import {
  CAPTURED_ID,
  CONSTRUCTED_TIKTOK,
  NO_CAPTIONS_ID,
  startTikTokReplay,
  type TikTokReplay,
} from './replay.js';

let replay: TikTokReplay;
let wall: Loopback;
const walled: string[] = [];
let walledExit: LoopbackProxy;
let goodExit: LoopbackProxy;
let t: TestApp;

beforeAll(async () => {
  replay = await startTikTokReplay();
  const verify = fs.readFileSync(path.join(CONSTRUCTED_TIKTOK, 'page-verify.html'));
  wall = await startServer((req, res) => {
    walled.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(verify);
  });
  walledExit = await startConnectProxy(() => `127.0.0.1:${wall.port}`);
  goodExit = await startConnectProxy();
  t = await createTestApp({
    UNFURL_UPSTREAM_TIKTOK: replay.url,
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
    // Longer than the file runs: the walled exit stays benched throughout.
    UNFURL_PROXY_BENCH_MS: '60000',
    UNFURL_PROXY_URLS: `${walledExit.url},${goodExit.url}`,
  });
});

afterAll(async () => {
  await t?.close();
  for (const s of [walledExit, goodExit, wall, replay]) await s?.close();
});

const videoUrl = (id: string) => `https://www.tiktok.com/@illojuan/video/${id}`;

describe('the short-video site behind a walled exit', () => {
  it('retries the verify page through the next proxy, billed once, and keeps the walled exit benched', async () => {
    const { apiKey } = await t.register();
    const res = await t.call(apiKey, {
      method: 'GET',
      url: `/v1/transcript?url=${encodeURIComponent(videoUrl(CAPTURED_ID))}`,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().lang).toBe('es');
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(walled).toHaveLength(1);

    const next = await t.call(apiKey, {
      method: 'GET',
      url: `/v1/transcript?url=${encodeURIComponent(videoUrl(NO_CAPTIONS_ID))}&mode=native`,
    });
    expect([next.statusCode, next.json().error]).toEqual([404, 'transcript_unavailable']);
    expect(walled).toHaveLength(1);
  });
});
