// GET /v1/youtube/transcript/translate against a language model too slow for the request's time
// budget (UNFURL_AI_TIMEOUT_MS): the run that runs out of time answers 503 provider_unavailable and
// is charged 2 credits per model call it made (the operator paid for them), not 0 and not a 500; the
// same translation asked again is refused up front (413) without a model call or a charge, since
// this server has seen how long a call takes; a translation that fits still costs 1 + 2 per call.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { type Loopback, startServer } from '../../support/loopback.js';
import { type ChatCall, type OpenAiServer, startOpenAiServer } from '../../support/openai-server.js';
import { startYouTubeReplay, type YouTubeReplay } from '../../support/youtube-replay.js';

const VIDEO = 'GJLlxj_dtq8'; // the platform translates its captions into 18 languages, not Swahili
const CUES = 1000; // short cues: 100 per model call, so 10 calls
const CALLS = 10;
const BUDGET_MS = 1000;
const SLOW_MS = 300; // 4 calls start within the budget, the 4th is cut off

/** A caption track of CUES short cues. */
const timedtext = () =>
  `<?xml version="1.0" encoding="utf-8" ?><transcript>${Array.from(
    { length: CUES },
    (_, i) => `<text start="${i}" dur="0.9">cue ${i}</text>`,
  ).join('')}</transcript>`;

/** A model that translates by tagging each cue. */
const tagging = (c: ChatCall) => {
  const { cues } = JSON.parse(c.body.messages.find((m) => m.role === 'user')!.content as string) as {
    cues: string[];
  };
  return JSON.stringify({ translations: cues.map((text) => `[sw] ${text}`) });
};

let replay: YouTubeReplay;
let ai: OpenAiServer;
let slow: Loopback;
let delayMs = 0;
let t: TestApp;

beforeAll(async () => {
  replay = await startYouTubeReplay({ timedtext });
  ai = await startOpenAiServer();
  // The stand-in model, slowed: each request goes to it at once (it counts the call), its answer
  // comes back `delayMs` later.
  slow = await startServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const answer = await fetch(`${ai.url}${req.url}`, {
      method: req.method,
      headers: { 'content-type': String(req.headers['content-type']) },
      body: Buffer.concat(chunks),
    });
    const body = Buffer.from(await answer.arrayBuffer());
    await sleep(delayMs);
    if (!res.destroyed) res.writeHead(answer.status, { 'content-type': 'application/json' }).end(body);
  });
  t = await createTestApp({
    UNFURL_UPSTREAM_YOUTUBE: replay.url,
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
    UNFURL_AI_BASE_URL: `${slow.url}/v1`,
    UNFURL_AI_API_KEY: 'sk-test',
    UNFURL_AI_TIMEOUT_MS: String(BUDGET_MS),
  });
});
afterAll(async () => {
  await t?.close();
  await slow?.close();
  await ai?.close();
  await replay?.close();
});
beforeEach(() => {
  ai.reset();
  ai.chat = tagging;
});

const translate = (key: string) =>
  t.call(key, { method: 'GET', url: `/v1/youtube/transcript/translate?videoId=${VIDEO}&lang=sw` });
const balance = async (key: string) =>
  (await t.call(key, { method: 'GET', url: '/v1/account' })).json().credits as number;
/** The account's ledger rows of model translations, as [type, amount] in order of type. */
const modelRows = async (key: string) =>
  (await t.call(key, { method: 'GET', url: '/v1/account/usage' }))
    .json()
    .transactions.filter((r: { description: string }) => r.description.includes('translation (model)'))
    .map((r: { type: string; amount: number }) => [r.type, r.amount])
    .sort();

// In order: the first run teaches the server how long the model's calls take.
describe('transcript translation within the time budget', () => {
  it('a translation that fits costs 1 + 2 per model call', async () => {
    delayMs = 0;
    const { apiKey } = await t.register();
    const res = await translate(apiKey);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-translated-by']).toBe('model');
    expect(ai.chats).toHaveLength(CALLS);
    expect(res.json().content).toHaveLength(CUES);
    expect(res.headers['x-credits-charged']).toBe(String(1 + 2 * CALLS));
    expect(await balance(apiKey)).toBe(100 - (1 + 2 * CALLS));
  });

  it('a model too slow for the budget: 503 provider_unavailable, the calls made charged', async () => {
    delayMs = SLOW_MS;
    const [one, other] = await Promise.all([t.register(), t.register()]);
    const began = Date.now();
    // One request on its own account, three more at once on another.
    const [res, ...others] = await Promise.all([
      translate(one.apiKey),
      ...Array.from({ length: 3 }, () => translate(other.apiKey)),
    ]);
    expect(Date.now() - began).toBeLessThan(BUDGET_MS + 1500);
    for (const r of [res!, ...others]) {
      expect(r.statusCode, r.body).toBe(503);
      expect(r.json().error).toBe('provider_unavailable');
      expect(r.json().message).toMatch(/language model provider did not answer within .*time budget/);
    }
    const counted = new RegExp(`(\\d+) of ${CALLS} model calls were made`);
    const made = (r: typeof res) => Number(counted.exec(r!.json().message)![1]);
    const madeByOther = others.reduce((n, r) => n + made(r), 0);
    // Every call the model received is in some request's count, and paid for by its account.
    expect(made(res) + madeByOther).toBe(ai.chats.length);
    expect(made(res)).toBeGreaterThan(0);
    expect(made(res)).toBeLessThan(CALLS);
    expect(await balance(one.apiKey)).toBe(100 - 2 * made(res));
    expect(await balance(other.apiKey)).toBe(100 - 2 * madeByOther);
    // Held in full, then released and settled at 2 per call made, as the ledger's rows say.
    expect(await modelRows(one.apiKey)).toEqual([
      ['hold', -(1 + 2 * CALLS)],
      ['release', 1 + 2 * CALLS],
      ['settled', -2 * made(res)],
    ]);
  });

  it('asked again, refused up front: 413, no model call, nothing charged', async () => {
    const { apiKey } = await t.register();
    const res = await translate(apiKey);
    expect(res.statusCode, res.body).toBe(413);
    expect(res.json().error).toBe('payload_too_large');
    expect(res.json().message).toMatch(
      new RegExp(`takes ${CALLS} language-model calls.*more than the 1 s a request may take`),
    );
    expect(ai.chats).toHaveLength(0);
    expect(await balance(apiKey)).toBe(100);
    expect(await modelRows(apiKey)).toEqual([]);
  });
});
