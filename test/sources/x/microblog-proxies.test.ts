// The microblog's walls on the health-aware path: two proxies, the first one's exit walled (every
// request refused with the rate-limit error, code 88, under a 403), the second reaching the replay.
// The request answers 200, billed once, and the walled exit — benched for the platform — gets no more.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { type Loopback, type LoopbackProxy, startConnectProxy, startServer } from '../../support/loopback.js';
import { CONSTRUCTED_X, startXReplay, type XReplay } from './replay.js';

let replay: XReplay;
let wall: Loopback;
const walled: string[] = [];
let walledExit: LoopbackProxy;
let goodExit: LoopbackProxy;
let t: TestApp;

beforeAll(async () => {
  replay = await startXReplay();
  const refusal = JSON.parse(fs.readFileSync(path.join(CONSTRUCTED_X, 'answer-rate-limited.json'), 'utf8'));
  wall = await startServer((req, res) => {
    walled.push(req.url ?? '');
    res.writeHead(refusal.status, refusal.headers).end(refusal.body);
  });
  walledExit = await startConnectProxy(() => `127.0.0.1:${wall.port}`);
  goodExit = await startConnectProxy();
  t = await createTestApp({
    UNFURL_UPSTREAM_X: replay.url,
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

const post = (apiKey: string, url: string) =>
  t.call(apiKey, { method: 'GET', url: `/v1/microblog/post?url=${encodeURIComponent(url)}` });

describe('the microblog behind a walled exit', () => {
  it('retries the rate-limit refusal through the next proxy, billed once, and keeps the walled exit benched', async () => {
    const { apiKey } = await t.register();
    const res = await post(apiKey, 'https://x.com/dawnphotos/status/1790000000000000002');
    expect(res.statusCode).toBe(200);
    expect(res.json().text).toBe('Two views of dawn.');
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(walled).toHaveLength(1);

    const next = await post(apiKey, 'https://x.com/constructed_user/status/1790000000000000001');
    expect(next.statusCode).toBe(200);
    expect(walled).toHaveLength(1);
    expect(replay.requests.filter((r) => r.path === '/tweet-result')).toHaveLength(2);
  });
});
