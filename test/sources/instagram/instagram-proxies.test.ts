import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { recordedAnswer, startWalledExits, type WalledExits } from '../../support/walled-exits.js';
import { CONSTRUCTED_IG, type InstagramReplay, startInstagramReplay } from './replay.js';

let replay: InstagramReplay;
let exits: WalledExits;
let t: TestApp;

beforeAll(async () => {
  replay = await startInstagramReplay();
  exits = await startWalledExits(recordedAnswer(path.join(CONSTRUCTED_IG, 'answer-login-redirect.json')));
  t = await createTestApp({ UNFURL_UPSTREAM_INSTAGRAM: replay.url, ...exits.env });
});

afterAll(async () => {
  await t?.close();
  await exits?.close();
  await replay?.close();
});

const metadata = (apiKey: string, url: string) =>
  t.call(apiKey, { method: 'GET', url: `/v1/metadata?url=${encodeURIComponent(url)}` });

describe('the photo-sharing site behind a walled exit', () => {
  it('retries the login redirect through the next proxy, billed once, and keeps the walled exit benched', async () => {
    const { apiKey } = await t.register();
    const res = await metadata(apiKey, 'https://www.instagram.com/reel/CN2VQ1yI_MA/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(exits.walled).toHaveLength(1);

    const next = await metadata(apiKey, 'https://www.instagram.com/p/COn3M4TnRi1/');
    expect(next.statusCode).toBe(200);
    expect(exits.walled).toHaveLength(1);
    expect(replay.requests.filter((r) => r.path === '/api/graphql')).toHaveLength(2);
  });
});
