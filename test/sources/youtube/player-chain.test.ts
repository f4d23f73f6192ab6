// The player client chain end to end: a real app against the replay of the real captures, where each
// client of a staged video answers what the platform answers (a bot check, the age gate's
// LOGIN_REQUIRED, UNPLAYABLE, no captions, HTTP 400 for a client it does not take). The walk moves on
// past each, every client says who it is as its table entry does, the client that answered is asked
// first next time, and an operator's table (UNFURL_YOUTUBE_CLIENTS) replaces the chain.
import { describe, expect, it } from 'vitest';
import { DEFAULT_PLAYER_CLIENTS, KNOWN_CLIENTS } from '../../../src/sources/youtube/client-table.js';
import type { TestApp } from '../../support/app.js';
import { useReplayApp } from '../../support/replay-app.js';
import { CAPTURES, startYouTubeReplay, type YouTubeReplay } from '../../support/youtube-replay.js';

// Made-up ids (11 characters) the replay answers with chosen captures.
const WALK = 'walkChainXX'; // every client but the fifth turns us away, each its own way
const AFTER = 'afterWalkXX'; // any client answers
const ONLY_MWEB = 'onlyMwebXXX'; // a capture for MWEB only: every other client is answered HTTP 400
const GATED_OR_NONE = 'gatedNoneXX'; // ANDROID offers a gated English track, every other client none
const CIPHER_FIRST = 'cipherFirst'; // ANDROID hands out ciphered stream URLs only, the others plain ones
const CIPHERED = 'pytube/WXxV9g7lsFE.player.json'; // a captured answer whose streams are all ciphered
const VIDEO = 'GJLlxj_dtq8';
const UNPLAYABLE = 'pytube/5YceQ8YqYMc.player.json';

const CUES = [
  { text: 'Hey, this is just a test', offset: 0, duration: 1540, lang: 'en' },
  { text: 'this is not the original transcript', offset: 1540, duration: 4160, lang: 'en' },
  { text: 'just something shorter, I made up for testing', offset: 5700, duration: 3239, lang: 'en' },
];

const playersOf = (replay: YouTubeReplay) =>
  replay.requests.filter((r) => r.path === '/youtubei/v1/player').map((r) => `${r.client}:${r.videoId}`);
const once = (list: string[]) => list.filter((x, i) => list[i - 1] !== x);

describe('the default chain', () => {
  let replay: YouTubeReplay;
  let t: TestApp;
  let key: string;

  useReplayApp(
    {
      upstream: 'YOUTUBE',
      start: () =>
        startYouTubeReplay({
          players: {
            [WALK]: {
              ANDROID: CAPTURES.playerBotCheck,
              IOS: CAPTURES.playerAge,
              VISIONOS: UNPLAYABLE,
              TVHTML5: CAPTURES.playerNoCaptions,
              WEB_EMBEDDED_PLAYER: CAPTURES.playerOk,
            },
            [AFTER]: { '*': CAPTURES.playerOk },
            [ONLY_MWEB]: { MWEB: CAPTURES.playerOk },
            [GATED_OR_NONE]: { ANDROID: CAPTURES.playerPoToken, '*': CAPTURES.playerNoCaptions },
            [CIPHER_FIRST]: { ANDROID: CIPHERED, '*': CAPTURES.playerOk },
            WXxV9g7lsFE: { '*': CIPHERED },
          },
        }),
      clearRequests: true,
    },
    (stage) => {
      ({ replay, t, key } = stage);
    },
  );

  const get = (url: string) => t.call(key, { method: 'GET', url });
  const players = () => playersOf(replay);

  it('moves past a bot check, a login wall, an unplayable answer and no captions to the client that answers', async () => {
    const res = await get(`/v1/transcript?url=https://youtu.be/${WALK}&lang=en`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().content).toEqual(CUES);
    expect(res.headers['x-credits-charged']).toBe('1');
    // The bot check is retried as a block (three tries), then the chain moves on.
    expect(players().filter((p) => p.startsWith('ANDROID:'))).toHaveLength(3);
    expect(once(players())).toEqual(
      ['ANDROID', 'IOS', 'VISIONOS', 'TVHTML5', 'WEB_EMBEDDED_PLAYER'].map((c) => `${c}:${WALK}`),
    );
    // The embedded player says which page embeds it.
    const embedded = replay.requests.find((r) => r.client === 'WEB_EMBEDDED_PLAYER')!;
    expect(embedded.body?.context).toMatchObject({
      thirdParty: KNOWN_CLIENTS.WEB_EMBEDDED_PLAYER.thirdParty,
    });
  });

  it('asks the client that answered first next time, for transcripts only (metadata keeps its own order)', async () => {
    expect((await get(`/v1/transcript?url=https://youtu.be/${AFTER}`)).statusCode).toBe(200);
    expect(players()).toEqual([`WEB_EMBEDDED_PLAYER:${AFTER}`]);
    replay.requests.length = 0;
    const video = await get(`/v1/vidsite/video?id=${AFTER}`);
    expect(video.statusCode, video.body).toBe(200);
    expect(players()).toEqual([`ANDROID:${AFTER}`]);
  });

  it('moves on cleanly past clients the platform answers HTTP 400, each sending its own identity', async () => {
    const res = await get(`/v1/transcript?url=https://youtu.be/${ONLY_MWEB}&lang=en`);
    expect(res.statusCode, res.body).toBe(200);
    const order = [
      'WEB_EMBEDDED_PLAYER',
      ...DEFAULT_PLAYER_CLIENTS.filter((c) => c !== 'WEB_EMBEDDED_PLAYER'),
    ];
    expect(players()).toEqual(order.map((c) => `${c}:${ONLY_MWEB}`));
    for (const r of replay.requests.filter((r) => r.path === '/youtubei/v1/player')) {
      const c = KNOWN_CLIENTS[r.client as keyof typeof KNOWN_CLIENTS];
      expect(r.body?.context).toEqual({
        client: { clientName: c.clientName, clientVersion: c.version, hl: 'en', gl: 'US', ...c.context },
        ...(c.thirdParty && { thirdParty: c.thirdParty }),
      });
      expect([r.client, r.headers['x-youtube-client-name'], r.headers['user-agent']]).toEqual([
        c.name,
        String(c.id),
        c.userAgent,
      ]);
      expect(r.headers['x-youtube-client-version']).toBe(c.version);
    }
  });

  it('does not say "no captions" when one client offered a track it could not read: 502, unbilled', async () => {
    const res = await get(`/v1/transcript?url=https://youtu.be/${GATED_OR_NONE}&lang=en&mode=native`);
    expect([res.statusCode, res.json().error]).toEqual([502, 'upstream_error']);
    expect(res.json().message).toMatch(/needs a proof-of-origin token/);
    expect(res.headers['x-credits-charged']).toBeUndefined();
    expect(players()).toHaveLength(DEFAULT_PLAYER_CLIENTS.length);
    // Without the gated track, every client offering none is "no captions".
    const none = await get('/v1/transcript?url=https://youtu.be/dsMFmonKDD4&mode=native');
    expect([none.statusCode, none.json().error]).toEqual([404, 'transcript_unavailable']);
  });

  it('locates media through the first client with plain stream URLs, which media then asks first', async () => {
    const { location } = await t.services.platforms.locate(`https://youtu.be/${CIPHER_FIRST}`);
    expect(location.headers).toEqual({ 'user-agent': KNOWN_CLIENTS.IOS.userAgent });
    expect(players()).toEqual([`ANDROID:${CIPHER_FIRST}`, `IOS:${CIPHER_FIRST}`]);
    replay.requests.length = 0;
    await t.services.platforms.locate(`https://youtu.be/${AFTER}`);
    expect(players()).toEqual([`IOS:${AFTER}`]);
    // Ciphered everywhere: the video exists (available), but there is no file we can fetch.
    const ref = {
      platform: 'youtube' as const,
      id: 'WXxV9g7lsFE',
      url: 'https://www.youtube.com/watch?v=WXxV9g7lsFE',
    };
    await expect(t.services.platforms.checkAvailable(ref)).resolves.toBeUndefined();
    await expect(t.services.platforms.locate(ref.url)).rejects.toMatchObject({
      code: 'upstream_error',
      message: expect.stringMatching(/signature cipher only/),
    });
  });

  it('answers 403 when every client finds the video age-restricted, after asking each once', async () => {
    const res = await get('/v1/transcript?url=https://youtu.be/Njp5uhTorCo&mode=native');
    expect([res.statusCode, res.json().error]).toEqual([403, 'forbidden']);
    expect([...players()].sort()).toEqual(DEFAULT_PLAYER_CLIENTS.map((c) => `${c}:Njp5uhTorCo`).sort());
  });
});

describe("an operator's table (UNFURL_YOUTUBE_CLIENTS)", () => {
  let replay: YouTubeReplay;
  let t: TestApp;
  let key: string;

  useReplayApp(
    {
      upstream: 'YOUTUBE',
      start: () => startYouTubeReplay({ players: { [AFTER]: { '*': CAPTURES.playerOk } } }),
      env: {
        UNFURL_YOUTUBE_CLIENTS: JSON.stringify([
          { name: 'NOT_A_CLIENT', id: 999, version: '1.0', userAgent: 'not-a-client/1.0' },
          { name: 'IOS', version: '99.1.1' },
        ]),
      },
      clearRequests: true,
    },
    (stage) => {
      ({ replay, t, key } = stage);
    },
  );

  it('is the chain: its clients in its order, amended as it says; one the platform refuses is passed', async () => {
    const res = await t.call(key, { method: 'GET', url: `/v1/transcript?url=https://youtu.be/${VIDEO}` });
    expect(res.statusCode, res.body).toBe(200);
    expect(playersOf(replay)).toEqual([`NOT_A_CLIENT:${VIDEO}`, `IOS:${VIDEO}`]);
    const ios = replay.requests.find((r) => r.client === 'IOS')!;
    expect(ios.headers['x-youtube-client-version']).toBe('99.1.1');
    expect(ios.body?.context).toMatchObject({ client: { clientVersion: '99.1.1', osName: 'iPhone' } });
    expect(ios.headers['user-agent']).toBe(KNOWN_CLIENTS.IOS.userAgent);
    // The refused client is not asked first next time.
    replay.requests.length = 0;
    expect(
      (await t.call(key, { method: 'GET', url: `/v1/transcript?url=https://youtu.be/${AFTER}` })).statusCode,
    ).toBe(200);
    expect(playersOf(replay)).toEqual([`IOS:${AFTER}`]);
  });
});
