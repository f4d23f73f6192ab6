import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { recordedAnswer, startWalledExits, type WalledExits } from '../../support/walled-exits.js';
import { CONSTRUCTED_X, startXReplay, type XReplay } from './replay.js';

let replay: XReplay;
let exits: WalledExits;
let t: TestApp;

beforeAll(async () => {
  replay = await startXReplay();
  exits = await startWalledExits(recordedAnswer(path.join(CONSTRUCTED_X, 'answer-rate-limited.json')));
  t = await createTestApp({ UNFURL_UPSTREAM_X: replay.url, ...exits.env });
});

afterAll(async () => {
  await t?.close();
  await exits?.close();
  await replay?.close();
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
    expect(exits.walled).toHaveLength(1);

    const next = await post(apiKey, 'https://x.com/constructed_user/status/1790000000000000001');
    expect(next.statusCode).toBe(200);
    expect(exits.walled).toHaveLength(1);
    expect(replay.requests.filter((r) => r.path === '/tweet-result')).toHaveLength(2);
  });
});
