// GET /v1/youtube/transcript/translate end to end: the platform's own translation (1 credit), the
// language model's where the platform has none (cues in order, timing kept, 1 + 2 per model call),
// and 404 transcript_unavailable where neither can, unbilled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { type OpenAiServer, startOpenAiServer } from '../../support/openai-server.js';
import { startYouTubeReplay, type YouTubeReplay } from '../../support/youtube-replay.js';

const VIDEO = 'GJLlxj_dtq8'; // captions in 8 languages; the platform translates into 18, not Swahili

let replay: YouTubeReplay;
let ai: OpenAiServer;
let withModel: TestApp;
let without: TestApp;

beforeAll(async () => {
  replay = await startYouTubeReplay();
  ai = await startOpenAiServer();
  const env = {
    UNFURL_UPSTREAM_YOUTUBE: replay.url,
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
  };
  withModel = await createTestApp({ ...env, UNFURL_AI_BASE_URL: ai.baseUrl, UNFURL_AI_API_KEY: 'sk-test' });
  without = await createTestApp(env);
});
afterAll(async () => {
  await withModel?.close();
  await without?.close();
  await ai?.close();
  await replay?.close();
});

const translate = (t: TestApp, key: string, query: string) =>
  t.call(key, { method: 'GET', url: `/v1/youtube/transcript/translate?${query}` });

describe('transcript translation', () => {
  it("answers the platform's own translation for 1 credit", async () => {
    const { apiKey } = await withModel.register();
    const res = await translate(withModel, apiKey, `videoId=${VIDEO}&lang=nl`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().lang).toBe('nl');
    expect(res.json().content.length).toBeGreaterThan(0);
    expect(res.headers['x-translated-by']).toBe('platform');
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(ai.chats).toHaveLength(0);
  });

  it('falls back to the language model, cue by cue with timing kept, priced per call', async () => {
    ai.reset();
    ai.chat = (call) => {
      const user = call.body.messages.find((m) => m.role === 'user')!.content as string;
      const { cues } = JSON.parse(user) as { cues: string[] };
      return JSON.stringify({ translations: cues.map((c, i) => `sw${i}: ${c.slice(0, 10)}`) });
    };
    const { apiKey } = await withModel.register();
    const original = (
      await withModel.call(apiKey, {
        method: 'GET',
        url: `/v1/youtube/transcript?videoId=${VIDEO}&mode=native`,
      })
    ).json();
    const res = await translate(withModel, apiKey, `url=https://www.youtube.com/watch?v=${VIDEO}&lang=sw`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-translated-by']).toBe('model');
    const calls = ai.chats.length;
    expect(calls).toBeGreaterThan(0);
    expect(res.headers['x-credits-charged']).toBe(String(1 + 2 * calls));
    const body = res.json();
    expect(body.lang).toBe('sw');
    expect(body.content).toHaveLength(original.content.length);
    expect(body.content[0].offset).toBe(original.content[0].offset);
    expect(body.content[0].duration).toBe(original.content[0].duration);
    expect(body.content[0].text).toMatch(/^sw0: /);
    const balance = (await withModel.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits;
    expect(balance).toBe(100 - 1 - (1 + 2 * calls));
  });

  it('without a language model: 404 transcript_unavailable, unbilled', async () => {
    const { apiKey } = await without.register();
    const res = await translate(without, apiKey, `id=${VIDEO}&lang=sw`);
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('transcript_unavailable');
    expect((await without.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits).toBe(100);
    const missing = await translate(without, apiKey, `videoId=${VIDEO}`);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().details).toBe('lang');
  });
});
