// Channels, listings and comments of the video-sharing platform end to end: a real app on a fresh
// database, UNFURL_UPSTREAM_YOUTUBE pointing at the loopback replay server (captured channel tabs
// and playlists, constructed 2024+ pages and comment answers), 1 credit each, /v1/youtube/* aliases,
// 400s naming the parameter, 404s, and blocks retried through the next proxy, then 502 unbilled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL_TABS } from '../../../src/sources/youtube/listings.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { type LoopbackProxy, startConnectProxy } from '../../support/loopback.js';
import { useReplayApp } from '../../support/replay-app.js';
import {
  COMMENTED_VIDEO,
  CONSTRUCTED_CHANNEL,
  LEGACY_COMMENTED_VIDEO,
  startBlockedYouTube,
  startYouTubeReplay,
  type YouTubeReplay,
} from '../../support/youtube-replay.js';

const PK = 'UCs6nmQViDpUw0nuIx9c_WvA'; // ProgrammingKnowledge: the captured 2023 Videos tab (French)
const MLB = 'UCoLrcjPV5PbUrUyXq5mjc_A'; // the captured 2023 Shorts tab
const NCS_UPLOADS = 'UU_aEa8K-EOJ3D6gOs7HcyNg'; // captured first page + its captured continuation

let replay: YouTubeReplay;
let t: TestApp;
let key: string;

useReplayApp({ upstream: 'YOUTUBE', start: startYouTubeReplay, clearRequests: true }, (stage) => {
  ({ replay, t, key } = stage);
});

const get = (url: string, apiKey = key) => t.call(apiKey, { method: 'GET', url });
const balance = async () => (await get('/v1/account')).json().credits as number;
const q = encodeURIComponent;
/** The bodies of the innertube calls to one endpoint, without their client context. */
const bodies = (endpoint: string) =>
  replay.requests
    .filter((r) => r.path === `/youtubei/v1/${endpoint}`)
    .map(({ body }) => {
      const { context: _context, ...rest } = body ?? {};
      return rest;
    });

const PK_VIDEOS = [
  'S19QqBytWC4',
  'ah5M4Umuf9w',
  'fclTFQQvQFQ',
  'RphKLsy3tSc',
  'ANE0uKeX-U0',
  'SeOlDGN346E',
  'Z2r46Gv7mp4',
  'B3DndCaYgyM',
  'KzS39YvFOv8',
  'nkMTc_E2a_Q',
  '1VceG1Fmlo4',
  'HSIh8UswVVY',
  '6WW7J7Hhw8c',
  'xY80ybQveGo',
  '6fOLL23dauo',
  'Uul-r55n__k',
  'fo2mz_Vv8Zc',
  '8HH90zRaueE',
  'nXZmaLQRes4',
  'l2MBsq8r4uM',
  'S0uhVCZ6q_c',
  '7Be1AuQeAWM',
  'gB6WLkSrtJk',
  '4fXoXeQlBYA',
  'wGIG_8F-JxY',
  'OoVNt-KJ96w',
  'hTlU3byU-rI',
  '_LtwT5_zmDs',
  'OU5TF5lbY4c',
  'NXGIGU1jIXg',
];

describe('GET /v1/vidsite/channel', () => {
  it('answers a channel by id from its captured page, billed 1 credit, then from the cache', async () => {
    const before = await balance();
    const res = await get(`/v1/vidsite/channel?id=${PK}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id: PK,
      name: 'ProgrammingKnowledge',
      handle: '@ProgrammingKnowledge',
      description: expect.stringMatching(/^Hi Guys, \nI have Always been asked to share my code/),
      url: `https://www.youtube.com/channel/${PK}`,
      subscriberCount: 1_660_000,
      videoCount: 3_400,
      viewCount: null,
      thumbnail:
        'https://yt3.googleusercontent.com/ytc/AGIKgqO1_aTMxySfeMCqUCPHZPmm_Vh8ecdreU_HUhoR=s900-c-k-c0x00ffffff-no-rj',
      banner: expect.stringMatching(/^https:\/\/yt3\.googleusercontent\.com\/P_2SlvEHY8VylI.*=w2560-/),
    });
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(Number(res.headers['x-credits-remaining'])).toBe(before - 1);
    expect(bodies('browse')).toEqual([{ browseId: PK }]);
    expect(replay.requests[0]?.client).toBe('WEB');
    // The same channel by its URL and under the alias: from the cache, still billed.
    replay.requests.length = 0;
    const again = await get(`/v1/youtube/channel?id=${q(`https://www.youtube.com/channel/${PK}/videos`)}`);
    expect(again.json()).toEqual(res.json());
    expect(again.headers['x-credits-charged']).toBe('1');
    expect(replay.requests).toHaveLength(0);
  });

  it('resolves @handles and /user/ URLs through resolve_url (cached)', async () => {
    const mlb = await get('/v1/vidsite/channel?id=@MLB');
    expect(mlb.statusCode).toBe(200);
    expect(mlb.json()).toMatchObject({
      id: MLB,
      name: 'MLB',
      handle: '@MLB',
      subscriberCount: 4_140_000,
      videoCount: 287_000,
    });
    expect(bodies('navigation/resolve_url')).toEqual([{ url: 'https://www.youtube.com/@MLB' }]);
    expect(bodies('browse')).toEqual([{ browseId: MLB }]);
    replay.requests.length = 0;
    expect((await get(`/v1/vidsite/channel?id=${q('https://m.youtube.com/@mlb')}`)).json().id).toBe(MLB);
    expect(replay.requests).toHaveLength(0);

    const piet = await get(`/v1/vidsite/channel?id=${q('https://www.youtube.com/user/pietsmiet')}`);
    expect(piet.json()).toMatchObject({
      id: 'UCqwGaUvq_l0RKszeHhZ5leA',
      name: 'PietSmiet',
      handle: null,
      subscriberCount: 2_430_000,
      videoCount: null,
    });
    expect(bodies('navigation/resolve_url')).toEqual([{ url: 'https://www.youtube.com/user/pietsmiet' }]);
  });

  it('merges the About panel of the 2024+ layout: exact counts, views, the full description', async () => {
    const res = await get('/v1/vidsite/channel?id=@ConstructedChannel');
    expect(res.json()).toEqual({
      id: CONSTRUCTED_CHANNEL,
      name: 'Constructed Channel',
      handle: '@ConstructedChannel',
      description: expect.stringMatching(/\nOnly the About panel has this last line\.$/),
      url: `https://www.youtube.com/channel/${CONSTRUCTED_CHANNEL}`,
      subscriberCount: 1_230_000,
      videoCount: 461,
      viewCount: 98_765_432,
      thumbnail: 'https://yt3.googleusercontent.com/constructed-avatar=s900-c-k-c0x00ffffff-no-rj',
      banner: expect.stringMatching(/constructed-banner=w2560-/),
    });
    expect(bodies('browse')).toEqual([
      { browseId: CONSTRUCTED_CHANNEL },
      { continuation: expect.stringMatching(/^4qmFsgKrCBIYVUNjMG5zdHJ1Y3RlZENoYW5uZWwwMDAx/) },
    ]);
  });

  it('answers 404 for an unknown handle or channel id, uncharged', async () => {
    const before = await balance();
    for (const id of [
      '@nobodyHasThisHandle',
      'UCzzzzzzzzzzzzzzzzzzzzzz',
      q('https://youtube.com/c/nobody'),
    ]) {
      const res = await get(`/v1/vidsite/channel?id=${id}`);
      expect([id, res.statusCode, res.json().error]).toEqual([id, 404, 'not_found']);
    }
    expect(await balance()).toBe(before);
  });

  it('answers 400 naming id for a missing or bad reference', async () => {
    for (const url of [
      '/v1/vidsite/channel',
      '/v1/vidsite/channel?id=',
      `/v1/vidsite/channel?id=${q('https://www.youtube.com/watch?v=GJLlxj_dtq8')}`,
      `/v1/youtube/channel?id=${q('https://vimeo.com/channels/staffpicks')}`,
      '/v1/vidsite/channel?id=@x',
    ]) {
      const res = await get(url);
      expect([url, res.statusCode, res.json().details]).toEqual([url, 400, 'id']);
    }
  });
});

describe('GET /v1/vidsite/channel/videos', () => {
  it('lists the 30 captured videos by default (type all, limit 30), asking for one tab only', async () => {
    const res = await get(`/v1/vidsite/channel/videos?id=${PK}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ videoIds: PK_VIDEOS, shortIds: [], liveIds: [] });
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(bodies('browse')).toEqual([{ browseId: PK, params: CHANNEL_TABS.video.params }]);
  });

  it('fills an `all` total with videos, then shorts, then live, following continuations', async () => {
    const all = await get('/v1/vidsite/channel/videos?id=@ConstructedChannel&limit=1000');
    expect(all.json()).toEqual({
      videoIds: ['lockupVid01', 'lockupVid02', 'lockupLive1', 'lockupVid03', 'lockupVid04', 'lockupVid05'],
      shortIds: ['shortsVid01', 'shortsVid02', 'shortsVid03'],
      liveIds: ['streamPast1', 'streamPast2'], // lockupLive1 counted once, under Videos
    });
    expect(bodies('browse')).toEqual([
      { browseId: CONSTRUCTED_CHANNEL, params: CHANNEL_TABS.video.params },
      { continuation: '4qmFsgKconstructedVideosPage2' },
      { browseId: CONSTRUCTED_CHANNEL, params: CHANNEL_TABS.short.params },
      { continuation: '4qmFsgKconstructedShortsPage2' },
      { browseId: CONSTRUCTED_CHANNEL, params: CHANNEL_TABS.live.params },
    ]);
    const some = await get(`/v1/youtube/channel/videos?id=${CONSTRUCTED_CHANNEL}&type=all&limit=8`);
    expect(some.json()).toEqual({
      videoIds: ['lockupVid01', 'lockupVid02', 'lockupLive1', 'lockupVid03', 'lockupVid04', 'lockupVid05'],
      shortIds: ['shortsVid01', 'shortsVid02'],
      liveIds: [],
    });
  });

  it('lists one tab by type: live (streams tab), short (the captured Shorts tab)', async () => {
    const live = await get(`/v1/vidsite/channel/videos?id=${CONSTRUCTED_CHANNEL}&type=live`);
    expect(live.json()).toEqual({
      videoIds: [],
      shortIds: [],
      liveIds: ['lockupLive1', 'streamPast1', 'streamPast2'],
    });
    replay.requests.length = 0;
    const shorts = await get(
      `/v1/vidsite/channel/videos?id=${q('https://www.youtube.com/@MLB')}&type=short&limit=48`,
    );
    const ids = shorts.json().shortIds as string[];
    expect(ids).toHaveLength(48);
    expect([ids[0], ids.at(-1)]).toEqual(['QkxWDZWLdPo', 'ZDQA8UaHRh4']);
    expect(shorts.json().videoIds).toEqual([]);
    expect(bodies('browse')).toEqual([{ browseId: MLB, params: CHANNEL_TABS.short.params }]);
  });

  it('gives empty lists for tabs a channel lacks (2020 channel: the home tab answers)', async () => {
    const res = await get(
      `/v1/vidsite/channel/videos?id=${q('https://www.youtube.com/c/pietsmiet')}&limit=100`,
    );
    expect(res.json()).toEqual({ videoIds: [], shortIds: [], liveIds: [] });
    expect(bodies('browse')).toHaveLength(1); // no Shorts or Live tab: not asked for
    // A tab the channel has but the answer is another one: empty, not the other tab's videos.
    const shorts = await get(`/v1/vidsite/channel/videos?id=${PK}&type=short`);
    expect(shorts.json()).toEqual({ videoIds: [], shortIds: [], liveIds: [] });
  });

  it('answers 400 naming the parameter, 404 for an unknown channel, uncharged', async () => {
    const before = await balance();
    for (const [query, param] of [
      ['', 'id'],
      ['id=not%20a%20channel', 'id'],
      [`id=${PK}&type=playlists`, 'type'],
      [`id=${PK}&limit=0`, 'limit'],
      [`id=${PK}&limit=1001`, 'limit'],
      [`id=${PK}&limit=ten`, 'limit'],
    ]) {
      const res = await get(`/v1/vidsite/channel/videos?${query}`);
      expect([query, res.statusCode, res.json().details]).toEqual([query, 400, param]);
    }
    const unknown = await get('/v1/vidsite/channel/videos?id=UCzzzzzzzzzzzzzzzzzzzzzz');
    expect([unknown.statusCode, unknown.json().error]).toEqual([404, 'not_found']);
    expect(await balance()).toBe(before);
  });

  it('answers 502 upstream_error, uncharged, when the platform refuses a continuation', async () => {
    const before = await balance();
    // The captured Videos tab's real token; the stand-in has no capture of that page and refuses it.
    const res = await get(`/v1/vidsite/channel/videos?id=${PK}&type=video&limit=31`);
    expect([res.statusCode, res.json().error]).toEqual([502, 'upstream_error']);
    expect(res.headers['x-credits-charged']).toBeUndefined();
    expect(await balance()).toBe(before);
  });
});

describe('GET /v1/vidsite/playlist/videos', () => {
  it('lists the first 100 by default, from the first page only', async () => {
    const res = await get(`/v1/vidsite/playlist/videos?id=${NCS_UPLOADS}`);
    expect(res.statusCode).toBe(200);
    const { videoIds, shortIds, liveIds } = res.json();
    expect(videoIds).toHaveLength(100);
    expect([videoIds[0], videoIds.at(-1)]).toEqual(['K6ry2Lm9-2Q', 't4IOgVatNLI']);
    expect([shortIds, liveIds]).toEqual([[], []]);
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(bodies('browse')).toEqual([{ browseId: `VL${NCS_UPLOADS}` }]);
  });

  it('follows the captured continuation up to the limit, each video once', async () => {
    const res = await get(`/v1/vidsite/playlist/videos?id=${NCS_UPLOADS}&limit=1000`);
    const ids = res.json().videoIds as string[];
    expect(ids).toHaveLength(100 + 99 - 6); // six videos stand on both pages
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.at(-1)).toBe('p4M3Gle4NQ4');
    expect(bodies('browse')).toEqual([
      // the first page came from the cache
      { continuation: '<firstContinuationToken>' },
      { continuation: '<secondContinuationToken>' },
    ]);
    const cut = await get(`/v1/youtube/playlist/videos?id=${NCS_UPLOADS}&limit=150`);
    expect(cut.json().videoIds).toEqual(ids.slice(0, 150));
  });

  it('takes playlist URLs and answers a 2023 playlist', async () => {
    const url = 'https://www.youtube.com/watch?v=ujTCoH21GlA&list=PLzMcBGfZo4-mP7qA9cagf68V06sko5otr&index=1';
    const res = await get(`/v1/vidsite/playlist/videos?id=${q(url)}&limit=5`);
    expect(res.json()).toEqual({
      videoIds: ['ujTCoH21GlA', '45ryDIPHdGg', '1BYu65vLKdA', expect.any(String), expect.any(String)],
      shortIds: [],
      liveIds: [],
    });
    const all = await get('/v1/vidsite/playlist/videos?id=PLzMcBGfZo4-mP7qA9cagf68V06sko5otr');
    expect(all.json().videoIds).toHaveLength(12);
    expect(all.json().videoIds.at(-1)).toBe('zixd-si9Q-o');
  });

  it('answers 404 for a playlist that does not exist (error page or landing page), uncharged', async () => {
    const before = await balance();
    for (const id of ['PLthisPlaylistDoesNotExist0', 'PLlandingPageServedForThisId']) {
      const res = await get(`/v1/vidsite/playlist/videos?id=${id}`);
      expect([id, res.statusCode, res.json().error]).toEqual([id, 404, 'not_found']);
    }
    expect(await balance()).toBe(before);
  });

  it('answers 400 naming the parameter', async () => {
    for (const [query, param] of [
      ['', 'id'],
      ['id=hello', 'id'],
      [`id=${q('https://www.youtube.com/watch?v=GJLlxj_dtq8')}`, 'id'],
      [`id=${NCS_UPLOADS}&limit=0`, 'limit'],
      [`id=${NCS_UPLOADS}&limit=5000`, 'limit'],
    ]) {
      const res = await get(`/v1/vidsite/playlist/videos?${query}`);
      expect([query, res.statusCode, res.json().details]).toEqual([query, 400, param]);
    }
  });
});

describe('GET /v1/vidsite/comments', () => {
  const first = {
    id: 'UgzC0nstructedC0mment1AaABAg',
    text: 'Pinned note from the channel: thanks for watching!',
    author: {
      name: '@ConstructedChannel',
      channelId: 'UCc0nstructedChannel0001',
      thumbnail: 'https://yt3.ggpht.com/constructed-1=s88-c-k-c0x00ffffff-no-rj',
    },
    likeCount: 1200,
    replyCount: 12,
    publishedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    isPinned: true,
    isHearted: true,
  };
  const C = {
    c1: 'UgzC0nstructedC0mment1AaABAg',
    c2: 'UgyC0nstructedC0mment2AaABAg',
    c3: 'UgxC0nstructedC0mment3AaABAg',
    c4: 'UgwC0nstructedC0mment4AaABAg',
  };
  const ids = (res: { json(): { comments: Array<{ id: string }> } }) => res.json().comments.map((c) => c.id);

  it('answers the Top comments across pages (2024+ layout), billed 1 credit', async () => {
    const res = await get(`/v1/vidsite/comments?id=${COMMENTED_VIDEO}`);
    expect(res.statusCode).toBe(200);
    expect(ids(res)).toEqual([C.c1, C.c2, C.c3, C.c4]);
    expect(res.json().comments[0]).toEqual(first);
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(bodies('next')).toEqual([
      { continuation: 'Eg0SC2NvbnN0cnVjdGVkGAYyJSIRIgtjb25zdHJ1Y3RlZDAAeAJCEGNvbW1lbnRzLXNlY3Rpb24%3D' },
      { continuation: 'Eg0SC2NvbnN0cnVjdGVkGAYyConstructedCommentsPage2' },
    ]);
  });

  it('stops at the limit without fetching further pages (first page from the cache)', async () => {
    const res = await get(`/v1/youtube/comments?id=${q(`https://youtu.be/${COMMENTED_VIDEO}`)}&limit=2`);
    expect(ids(res)).toEqual([C.c1, C.c2]);
    expect(replay.requests).toHaveLength(0);
  });

  it('sorts newest first through the sort menu of the first answer', async () => {
    const res = await get(`/v1/vidsite/comments?id=${COMMENTED_VIDEO}&sort=newest&limit=10`);
    expect(ids(res)).toEqual([C.c1, C.c4, C.c2, C.c3]);
    expect(bodies('next')).toEqual([
      {
        continuation: 'Eg0SC2NvbnN0cnVjdGVkGAYyJSIRIgtjb25zdHJ1Y3RlZDABeAJCEGNvbW1lbnRzLXNlY3Rpb24%3D-newest',
      },
    ]); // the Top answer came from the cache; its Newest token is the only request
  });

  it('reads the legacy commentRenderer layout', async () => {
    const res = await get(
      `/v1/vidsite/comments?id=${q(`https://www.youtube.com/watch?v=${LEGACY_COMMENTED_VIDEO}`)}`,
    );
    expect(res.json().comments).toEqual([
      expect.objectContaining({
        id: 'UgxLegacyC0mment1AaABAg',
        text: 'Welcome, everyone!',
        likeCount: 3400,
        replyCount: 21,
        isPinned: true,
        isHearted: true,
      }),
      expect.objectContaining({ id: 'UgxLegacyC0mment2AaABAg', likeCount: 15 }),
      expect.objectContaining({ id: 'UgxLegacyC0mment3AaABAg', likeCount: 0, isHearted: false }),
    ]);
  });

  it('answers [] for a video without comments (billed) and 404 for no video (uncharged)', async () => {
    const before = await balance();
    const none = await get('/v1/vidsite/comments?id=dsMFmonKDD4');
    expect([none.statusCode, none.json()]).toEqual([200, { comments: [] }]);
    expect(replay.requests.map((r) => r.path)).toEqual(['/youtubei/v1/next', '/youtubei/v1/player']);
    const unknown = await get('/v1/vidsite/comments?id=zzzzzzzzzzz');
    expect([unknown.statusCode, unknown.json().error]).toEqual([404, 'not_found']);
    expect(await balance()).toBe(before - 1);
  });

  it('answers 400 naming the parameter', async () => {
    for (const [query, param] of [
      ['', 'id'],
      ['id=abc', 'id'],
      [`id=${COMMENTED_VIDEO}&sort=oldest`, 'sort'],
      [`id=${COMMENTED_VIDEO}&limit=0`, 'limit'],
      [`id=${COMMENTED_VIDEO}&limit=1001`, 'limit'],
    ]) {
      const res = await get(`/v1/vidsite/comments?${query}`);
      expect([query, res.statusCode, res.json().details]).toEqual([query, 400, param]);
    }
  });
});

describe('OpenAPI', () => {
  it('documents the four paths once; the youtube aliases are named, not listed', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const path of ['channel', 'channel/videos', 'playlist/videos', 'comments']) {
      expect(spec.paths[`/v1/vidsite/${path}`]?.get.description).toContain(`/v1/youtube/${path}`);
      expect(spec.paths[`/v1/youtube/${path}`]).toBeUndefined();
    }
  });
});

describe('blocks', () => {
  let blocked: YouTubeReplay;
  let blockedExit: LoopbackProxy;
  let goodExit: LoopbackProxy;
  let rotating: TestApp;
  let walled: TestApp;

  beforeAll(async () => {
    blocked = await startBlockedYouTube();
    blockedExit = await startConnectProxy(() => `127.0.0.1:${blocked.port}`);
    goodExit = await startConnectProxy();
    const env = {
      UNFURL_UPSTREAM_YOUTUBE: replay.url,
      UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
      UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
      // A blocked exit stays benched for the whole describe.
      UNFURL_PROXY_BENCH_MS: '60000',
    };
    rotating = await createTestApp({ ...env, UNFURL_PROXY_URLS: `${blockedExit.url},${goodExit.url}` });
    walled = await createTestApp({ ...env, UNFURL_PROXY_URLS: `${blockedExit.url},${blockedExit.url}` });
  });

  afterAll(async () => {
    await rotating?.close();
    await walled?.close();
    for (const s of [blockedExit, goodExit, blocked]) await s?.close();
  });

  const URLS = [
    '/v1/vidsite/channel?id=@MLB',
    `/v1/vidsite/channel/videos?id=${CONSTRUCTED_CHANNEL}&limit=5`,
    `/v1/vidsite/playlist/videos?id=${NCS_UPLOADS}&limit=150`,
    `/v1/vidsite/comments?id=${COMMENTED_VIDEO}`,
  ];

  it('retries a bot-checked browse/next/resolve_url through the next proxy', async () => {
    const { apiKey } = await rotating.register();
    for (const url of URLS) {
      const res = await rotating.call(apiKey, { method: 'GET', url });
      expect([url, res.statusCode]).toEqual([url, 200]);
    }
    expect(blocked.requests.length).toBeGreaterThanOrEqual(1);
    expect((await rotating.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits).toBe(96);
  });

  it('answers 502 upstream_error when every exit is blocked, then 503 with Retry-After while they are benched; never billed', async () => {
    const { apiKey } = await walled.register();
    for (const [i, url] of URLS.entries()) {
      const res = await walled.call(apiKey, { method: 'GET', url });
      // The first request finds every exit blocked; the rest find them all benched (src/net/proxies.ts).
      const expected = i === 0 ? [502, 'upstream_error'] : [503, 'service_unavailable'];
      expect([url, res.statusCode, res.json().error]).toEqual([url, ...expected]);
      if (i > 0) expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(res.headers['x-credits-charged']).toBeUndefined();
    }
    expect((await walled.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits).toBe(100);
  });
});
