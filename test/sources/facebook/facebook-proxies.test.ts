import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { recordedAnswer, startWalledExits, type WalledExits } from '../../support/walled-exits.js';
import { CONSTRUCTED_FB, type FacebookReplay, REEL_ID, startFacebookReplay, WATCH_ID } from './replay.js';

let replay: FacebookReplay;
let exits: WalledExits;
let t: TestApp;

beforeAll(async () => {
  replay = await startFacebookReplay();
  exits = await startWalledExits(
    recordedAnswer(path.join(CONSTRUCTED_FB, 'answer-checkpoint-redirect.json')),
  );
  t = await createTestApp({ UNFURL_UPSTREAM_FACEBOOK: replay.url, ...exits.env });
});

afterAll(async () => {
  await t?.close();
  await exits?.close();
  await replay?.close();
});

const transcript = (apiKey: string, url: string) =>
  t.call(apiKey, { method: 'GET', url: `/v1/transcript?url=${encodeURIComponent(url)}` });

describe('the social network behind a walled exit', () => {
  it('retries the checkpoint redirect through the next proxy, billed once, and keeps the walled exit benched', async () => {
    const { apiKey } = await t.register();
    const res = await transcript(apiKey, `https://www.facebook.com/watch/?v=${WATCH_ID}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(exits.walled).toHaveLength(1);

    const next = await transcript(apiKey, `https://www.facebook.com/reel/${REEL_ID}`);
    expect(next.statusCode).toBe(200);
    expect(exits.walled).toHaveLength(1);
  });
});
