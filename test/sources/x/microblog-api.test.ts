// GET /v1/microblog/post end to end: a real app on a fresh database, UNFURL_UPSTREAM_X pointing at a
// loopback replay of the platform (recorded GraphQL captures, constructed syndication answers).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { BEARER, startXReplay, type XReplay } from './replay.js';

let replay: XReplay;
let full: TestApp; // with the web bearer token: GraphQL first
let plain: TestApp; // without: syndication only
let fullKey: string;
let plainKey: string;

beforeAll(async () => {
  replay = await startXReplay();
  const base = {
    UNFURL_UPSTREAM_X: replay.url,
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
  };
  full = await createTestApp({ ...base, UNFURL_X_BEARER_TOKEN: BEARER });
  plain = await createTestApp(base);
  fullKey = (await full.register()).apiKey;
  plainKey = (await plain.register()).apiKey;
});

afterAll(async () => {
  await full?.close();
  await plain?.close();
  await replay?.close();
});

beforeEach(() => {
  replay.requests.length = 0;
});

const post = (t: TestApp, key: string, url: string, path = '/v1/microblog/post') =>
  t.call(key, { method: 'GET', url: `${path}?url=${encodeURIComponent(url)}` });
const balance = async (t: TestApp, key: string) =>
  (await t.call(key, { method: 'GET', url: '/v1/account' })).json().credits as number;

describe('GET /v1/microblog/post', () => {
  it('answers every field of a post from the web GraphQL, billed 1 credit', async () => {
    const before = await balance(full, fullKey);
    const res = await post(full, fullKey, 'https://twitter.com/carrionkid/status/1902059299591090335?s=20');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(res.json()).toEqual({
      id: '1902059299591090335',
      url: 'https://x.com/carrionkid/status/1902059299591090335',
      text: '',
      author: {
        username: 'carrionkid',
        displayName: 'harlow',
        profileImageUrl: 'https://pbs.twimg.com/profile_images/1246997941409189888/rZzhMxv7_400x400.jpg',
        verified: false,
      },
      stats: { likes: 68091, retweets: 6738, replies: 85, views: 1223553, bookmarks: 11022 },
      createdAt: '2025-03-18T18:07:30.000Z',
      media: [
        { type: 'video', url: expect.stringMatching(/^https:\/\/video\.twimg\.com\/.+576x1280.+\.mp4/) },
      ],
      quotedTweet: {
        id: '1900793157786255768',
        text: 'the funniest tik toks be the ones they dont let you save',
        author: { username: '__itzt3z', displayName: expect.any(String) },
      },
    });
    expect(await balance(full, fullKey)).toBe(before - 1);
    expect(replay.requests.map((r) => r.path)).toEqual([
      '/1.1/guest/activate.json',
      '/i/api/graphql/2ICDjqPd81tulZcYrtpTuQ/TweetResultByRestId',
    ]);
  });

  it('answers the same on the /v1/twitter/post and /v1/x/post aliases, from the cache', async () => {
    const first = await post(full, fullKey, 'https://x.com/SpaceX/status/1848831595014459513');
    replay.requests.length = 0;
    for (const path of ['/v1/twitter/post', '/v1/x/post']) {
      const res = await post(full, fullKey, 'https://mobile.x.com/i/status/1848831595014459513', path);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(first.json());
      expect(res.headers['x-credits-charged']).toBe('1');
    }
    expect(replay.requests).toEqual([]); // cached
    expect(first.json().stats.views).toBe(2366779);
    expect(first.json().media).toHaveLength(3);
  });

  it('falls back to the syndication answer when the GraphQL is rate-limited', async () => {
    replay.rateLimited.add('1790000000000000001');
    const res = await post(full, fullKey, 'https://x.com/constructed_user/status/1790000000000000001');
    expect(res.statusCode).toBe(200);
    expect(res.json().stats).toEqual({
      likes: 1520,
      retweets: null,
      replies: 64,
      views: 48211,
      bookmarks: null,
    });
    expect(replay.requests.map((r) => r.path)).toContain('/tweet-result');
  });

  it('answers from the syndication answer alone when no web token is configured', async () => {
    const res = await post(plain, plainKey, 'https://x.com/dawnphotos/status/1790000000000000002');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: '1790000000000000002',
      text: 'Two views of dawn.',
      author: { username: 'dawnphotos', verified: true },
      media: [
        { type: 'image', url: 'https://pbs.twimg.com/media/DawnOneAAA.jpg' },
        { type: 'image', url: 'https://pbs.twimg.com/media/DawnTwoBBB.jpg' },
      ],
    });
    expect(replay.requests.map((r) => r.path)).toEqual(['/tweet-result']);
    expect(replay.requests[0]!.headers['user-agent']).toBe('Googlebot');
  });

  it('follows t.co links to the post', async () => {
    const res = await post(full, fullKey, 'https://t.co/shortpost');
    expect(res.statusCode).toBe(200);
    expect(res.json().id).toBe('1848831595014459513');
  });

  it('answers 404 for suspended, deleted and unknown posts, charging nothing', async () => {
    const before = await balance(full, fullKey);
    const cases: Array<[TestApp, string, string]> = [
      [full, fullKey, 'https://x.com/someone/status/991500'], // TweetUnavailable: Suspended
      [full, fullKey, 'https://x.com/someone/status/1234567890123'], // GraphQL: no result
      [plain, plainKey, 'https://x.com/someone/status/1790000000000000404'], // syndication tombstone
      [plain, plainKey, 'https://x.com/someone/status/1790000000000000999'], // syndication 404
    ];
    for (const [t, key, url] of cases) {
      const res = await post(t, key, url);
      expect([url, res.statusCode, res.json().error]).toEqual([url, 404, 'not_found']);
    }
    expect(await balance(full, fullKey)).toBe(before);
  });

  it('answers 400 naming url for anything but a post URL, and needs a key', async () => {
    const before = await balance(full, fullKey);
    for (const url of ['https://x.com/jack', 'https://www.youtube.com/watch?v=GJLlxj_dtq8', 'not a url']) {
      const res = await post(full, fullKey, url);
      expect([url, res.statusCode, res.json().details]).toEqual([url, 400, 'url']);
    }
    const missing = await full.call(fullKey, { method: 'GET', url: '/v1/microblog/post' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toMatch(/url/);
    expect((await post(full, '', 'https://x.com/jack/status/20')).statusCode).toBe(401);
    expect(await balance(full, fullKey)).toBe(before);
  });

  it('routes post URLs given to GET /v1/transcript: no captions, video for speech recognition, 404s', async () => {
    const before = await balance(full, fullKey);
    const ask = (url: string, mode: string) =>
      full.call(fullKey, {
        method: 'GET',
        url: `/v1/transcript?url=${encodeURIComponent(url)}&mode=${mode}`,
      });
    const video = 'https://x.com/carrionkid/status/1902059299591090335';
    expect((await ask(video, 'native')).json().error).toBe('transcript_unavailable');
    for (const mode of ['auto', 'generate']) {
      const res = await ask(video, mode);
      expect([mode, res.statusCode, res.json().error]).toEqual([mode, 503, 'provider_unavailable']);
    }
    const photos = await ask('https://x.com/SpaceX/status/1848831595014459513', 'generate');
    expect([photos.statusCode, photos.json().error, photos.json().message]).toEqual([
      404,
      'not_found',
      expect.stringMatching(/no video/),
    ]);
    const gone = await ask('https://x.com/someone/status/991500', 'native');
    expect([gone.statusCode, gone.json().error]).toEqual([404, 'not_found']);
    const { location } = await full.services.platforms.locate(video);
    expect(location).toMatchObject({ upstream: 'x', kind: 'video', durationSec: 16.394 });
    expect(location.url).toMatch(/^https:\/\/video\.twimg\.com\/.+\.mp4/);
    expect(await balance(full, fullKey)).toBe(before);
  });

  it('is documented once under Posts, the aliases named', async () => {
    const doc = (await full.call(null, { method: 'GET', url: '/openapi.json' })).json();
    expect(doc.paths['/v1/microblog/post'].get.tags).toEqual(['Posts']);
    expect(doc.paths['/v1/twitter/post']).toBeUndefined();
    expect(doc.paths['/v1/microblog/post'].get.description).toMatch(/\/v1\/twitter\/post.*\/v1\/x\/post/);
  });
});
