// The social network's walls on the health-aware path: two proxies, the first one's exit walled
// (every page request sent to a /checkpoint/), the second reaching the replay. The request answers
// 200, billed once, and the walled exit — benched for the platform — gets no more.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { type Loopback, type LoopbackProxy, startConnectProxy, startServer } from '../../support/loopback.js';
import { CONSTRUCTED_FB, type FacebookReplay, REEL_ID, startFacebookReplay, WATCH_ID } from './replay.js';

let replay: FacebookReplay;
let wall: Loopback;
const walled: string[] = [];
let walledExit: LoopbackProxy;
let goodExit: LoopbackProxy;
let t: TestApp;

beforeAll(async () => {
  replay = await startFacebookReplay();
  const checkpoint = JSON.parse(
    fs.readFileSync(path.join(CONSTRUCTED_FB, 'answer-checkpoint-redirect.json'), 'utf8'),
  );
  wall = await startServer((req, res) => {
    walled.push(req.url ?? '');
    res.writeHead(checkpoint.status, checkpoint.headers).end(checkpoint.body);
  });
  walledExit = await startConnectProxy(() => `127.0.0.1:${wall.port}`);
  goodExit = await startConnectProxy();
  t = await createTestApp({
    UNFURL_UPSTREAM_FACEBOOK: replay.url,
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

const transcript = (apiKey: string, url: string) =>
  t.call(apiKey, { method: 'GET', url: `/v1/transcript?url=${encodeURIComponent(url)}` });

describe('the social network behind a walled exit', () => {
  it('retries the checkpoint redirect through the next proxy, billed once, and keeps the walled exit benched', async () => {
    const { apiKey } = await t.register();
    const res = await transcript(apiKey, `https://www.facebook.com/watch/?v=${WATCH_ID}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(walled).toHaveLength(1);

    const next = await transcript(apiKey, `https://www.facebook.com/reel/${REEL_ID}`);
    expect(next.statusCode).toBe(200);
    expect(walled).toHaveLength(1);
  });
});
