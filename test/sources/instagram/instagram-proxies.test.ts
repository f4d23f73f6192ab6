// The photo-sharing site's walls on the health-aware path: two proxies, the first one's exit walled
// (every request sent to /accounts/login/, the anonymous rate limit), the second reaching the replay.
// The request answers 200, billed once, and the walled exit — benched for the platform — gets no more.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { type Loopback, type LoopbackProxy, startConnectProxy, startServer } from '../../support/loopback.js';
import { CONSTRUCTED_IG, type InstagramReplay, startInstagramReplay } from './replay.js';

let replay: InstagramReplay;
let wall: Loopback;
const walled: string[] = [];
let walledExit: LoopbackProxy;
let goodExit: LoopbackProxy;
let t: TestApp;

beforeAll(async () => {
  replay = await startInstagramReplay();
  const login = JSON.parse(fs.readFileSync(path.join(CONSTRUCTED_IG, 'answer-login-redirect.json'), 'utf8'));
  wall = await startServer((req, res) => {
    walled.push(req.url ?? '');
    req.resume();
    res.writeHead(login.status, login.headers).end(login.body);
  });
  walledExit = await startConnectProxy(() => `127.0.0.1:${wall.port}`);
  goodExit = await startConnectProxy();
  t = await createTestApp({
    UNFURL_UPSTREAM_INSTAGRAM: replay.url,
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

const metadata = (apiKey: string, url: string) =>
  t.call(apiKey, { method: 'GET', url: `/v1/metadata?url=${encodeURIComponent(url)}` });

describe('the photo-sharing site behind a walled exit', () => {
  it('retries the login redirect through the next proxy, billed once, and keeps the walled exit benched', async () => {
    const { apiKey } = await t.register();
    const res = await metadata(apiKey, 'https://www.instagram.com/reel/CN2VQ1yI_MA/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(walled).toHaveLength(1);

    const next = await metadata(apiKey, 'https://www.instagram.com/p/COn3M4TnRi1/');
    expect(next.statusCode).toBe(200);
    expect(walled).toHaveLength(1);
    expect(replay.requests.filter((r) => r.path === '/api/graphql')).toHaveLength(2);
  });
});
