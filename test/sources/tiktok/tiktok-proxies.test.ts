// The short-video site's walls on the health-aware path: two proxies, the first one's exit walled
// (every request answered with the "Verify to continue" page), the second reaching the replay. The
// request answers 200, billed once, and the walled exit — benched for the platform — gets no more.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { startWalledExits, type WalledExits } from '../../support/walled-exits.js';
import {
  CAPTURED_ID,
  CONSTRUCTED_TIKTOK,
  NO_CAPTIONS_ID,
  startTikTokReplay,
  type TikTokReplay,
} from './replay.js';

let replay: TikTokReplay;
let exits: WalledExits;
let t: TestApp;

beforeAll(async () => {
  replay = await startTikTokReplay();
  const verify = fs.readFileSync(path.join(CONSTRUCTED_TIKTOK, 'page-verify.html'));
  exits = await startWalledExits((res) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(verify),
  );
  t = await createTestApp({ UNFURL_UPSTREAM_TIKTOK: replay.url, ...exits.env });
});

afterAll(async () => {
  await t?.close();
  await exits?.close();
  await replay?.close();
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
    expect(exits.walled).toHaveLength(1);

    const next = await t.call(apiKey, {
      method: 'GET',
      url: `/v1/transcript?url=${encodeURIComponent(videoUrl(NO_CAPTIONS_ID))}&mode=native`,
    });
    expect([next.statusCode, next.json().error]).toEqual([404, 'transcript_unavailable']);
    expect(exits.walled).toHaveLength(1);
  });
});
