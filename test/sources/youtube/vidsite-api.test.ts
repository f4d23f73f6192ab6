// Transcripts and video metadata of the video-sharing platform end to end: a real app on a fresh
// database, UNFURL_UPSTREAM_YOUTUBE pointing at a loopback server that replays the real captures.
import { describe, expect, it } from 'vitest';
import { DEFAULT_PLAYER_CLIENTS } from '../../../src/sources/youtube/client-table.js';
import type { TestApp } from '../../support/app.js';
import { useReplayApp } from '../../support/replay-app.js';
import { CAPTURES, startYouTubeReplay, type YouTubeReplay } from '../../support/youtube-replay.js';

const VIDEO = 'GJLlxj_dtq8';
// Made-up ids (11 characters) the replay answers with chosen captures, to stage what the platform does.
const PO_GATED = 'poTokenGate'; // ANDROID's English track needs a PO token; the fallback client's does not
const BOTH_GATED = 'bothGatedXX'; // every client's English track needs a PO token
const EMPTY_FIRST = 'emptyBodyXX'; // ANDROID's timedtext answers an empty body
const ANDROID_SIGNATURE = '1F9610ACAAC990A6B62DB23D030E97121C9E8F97';
/** Which timedtext answers come back empty: none, those of the first client's URLs, or all. */
let emptyBodies: 'none' | 'android' | 'all' = 'none';

let replay: YouTubeReplay;
let t: TestApp;
let key: string;

useReplayApp(
  {
    upstream: 'YOUTUBE',
    start: () =>
      startYouTubeReplay({
        players: {
          [PO_GATED]: { ANDROID: CAPTURES.playerPoToken, IOS: CAPTURES.playerOkAgain },
          [BOTH_GATED]: { '*': CAPTURES.playerPoToken },
          [EMPTY_FIRST]: { ANDROID: CAPTURES.playerOk, IOS: CAPTURES.playerOkAgain },
        },
        timedtext: (q) =>
          emptyBodies === 'all' ||
          (emptyBodies === 'android' && q.get('signature')?.startsWith(ANDROID_SIGNATURE))
            ? ''
            : undefined,
      }),
    clearRequests: true,
  },
  (stage) => {
    ({ replay, t, key } = stage);
  },
);

const get = (url: string, apiKey = key) => t.call(apiKey, { method: 'GET', url });
const transcript = (query: string) => get(`/v1/transcript?${query}`);
const watchUrl = (id: string) => `url=${encodeURIComponent(`https://www.youtube.com/watch?v=${id}`)}`;
const balance = async () => (await get('/v1/account')).json().credits as number;
const players = () =>
  replay.requests.filter((r) => r.path === '/youtubei/v1/player').map((r) => `${r.client}:${r.videoId}`);
const timedtexts = () => replay.requests.filter((r) => r.path === '/api/timedtext').map((r) => r.query);

const CUES = [
  { text: 'Hey, this is just a test', offset: 0, duration: 1540, lang: 'en' },
  { text: 'this is not the original transcript', offset: 1540, duration: 4160, lang: 'en' },
  { text: 'just something shorter, I made up for testing', offset: 5700, duration: 3239, lang: 'en' },
];
const LANGS = ['zh', 'cs', 'en', 'de', 'hi', 'ja', 'ko', 'es'];

describe('GET /v1/transcript', () => {
  it('answers the caption cues in ms from the mobile client, billed 1 credit', async () => {
    const before = await balance();
    const res = await transcript(`${watchUrl(VIDEO)}&lang=en`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ content: CUES, lang: 'en', availableLangs: LANGS });
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(Number(res.headers['x-credits-remaining'])).toBe(before - 1);
    expect(players()).toEqual([`ANDROID:${VIDEO}`]);
    const [q] = timedtexts();
    expect(q?.get('lang')).toBe('en');
    expect(q?.get('kind')).toBeNull(); // the manual track, not the auto-generated one
    expect(q?.get('fmt')).toBeNull();
    // Innertube calls carry the client's headers and the consent cookie.
    const call = replay.requests[0]!;
    expect(call.headers['x-youtube-client-name']).toBe('3');
    expect(call.headers.cookie).toContain('SOCS=CAI');
  });

  it('serves a repeated request from the cache (still billed), and shares concurrent identical fetches', async () => {
    const first = await transcript(`${watchUrl(VIDEO)}&lang=ja`);
    expect(first.json().lang).toBe('ja');
    expect(timedtexts()).toHaveLength(1);
    const again = await transcript(`url=${encodeURIComponent(`https://youtu.be/${VIDEO}?t=3`)}&lang=ja`);
    expect(again.statusCode).toBe(200);
    expect(again.headers['x-credits-charged']).toBe('1');
    expect(replay.requests).toHaveLength(1); // nothing new upstream
    const both = await Promise.all([
      transcript(`${watchUrl(VIDEO)}&lang=ko`),
      transcript(`${watchUrl(VIDEO)}&lang=ko`),
    ]);
    expect(both.map((r) => r.statusCode)).toEqual([200, 200]);
    expect(timedtexts()).toHaveLength(2);
  });

  it('resolves lang: native track, translation with tlang, else the original language', async () => {
    const de = (await transcript(`${watchUrl(VIDEO)}&lang=de`)).json();
    expect(de.lang).toBe('de');
    expect(de.content[0].lang).toBe('de');
    const nl = (await transcript(`${watchUrl(VIDEO)}&lang=nl`)).json();
    expect(nl.lang).toBe('nl');
    expect(nl.availableLangs).toEqual(LANGS);
    const fallback = (await transcript(`${watchUrl(VIDEO)}&lang=tlh`)).json();
    expect(fallback.lang).toBe('en');
    const asked = timedtexts().map((q) => `${q.get('lang')}>${q.get('tlang') ?? ''}`);
    expect(asked).toEqual(['de>', 'en>nl', 'en>']);
  });

  it('answers one string with text=true and merged chunks with chunkSize', async () => {
    const text = (await transcript(`${watchUrl(VIDEO)}&text=true`)).json();
    expect(text.content).toBe(CUES.map((c) => c.text).join(' '));
    const merged = (await transcript(`${watchUrl(VIDEO)}&chunkSize=70`)).json();
    expect(merged.content).toEqual([
      {
        text: 'Hey, this is just a test this is not the original transcript',
        offset: 0,
        duration: 5700,
        lang: 'en',
      },
      { text: 'just something shorter, I made up for testing', offset: 5700, duration: 3239, lang: 'en' },
    ]);
  });

  it('retries a PO-token-gated track with the fallback client', async () => {
    const res = await transcript(`${watchUrl(PO_GATED)}&lang=en`);
    expect(res.statusCode).toBe(200);
    expect(res.json().content).toEqual(CUES);
    expect(players()).toEqual([`ANDROID:${PO_GATED}`, `IOS:${PO_GATED}`]);
    // Only the fallback client's (clean) URL was fetched; the gated one never was.
    expect(timedtexts().map((q) => q.get('exp'))).toEqual([null]);
    expect(timedtexts()[0]?.get('signature')).toMatch(/^5510/);
    // A track of the first client that is not gated is used as it is.
    replay.requests.length = 0;
    expect((await transcript(`${watchUrl(PO_GATED)}&lang=de`)).statusCode).toBe(200);
    expect(players()).toEqual([]); // cached player answer
    expect(timedtexts()[0]?.get('signature')).toMatch(/^1F9610/);
  });

  it('never answers an empty transcript: an empty body is a block, retried, then the next client, then 502', async () => {
    const before = await balance();
    try {
      emptyBodies = 'android';
      const res = await transcript(`${watchUrl(EMPTY_FIRST)}&lang=en`);
      expect(res.statusCode).toBe(200);
      expect(res.json().content).toEqual(CUES);
      expect(players()).toEqual([`ANDROID:${EMPTY_FIRST}`, `IOS:${EMPTY_FIRST}`]);
      // The empty body is the exit refusing captions: retried as a block (3 tries going direct), then
      // the next client's track.
      expect(timedtexts().map((q) => q.get('signature')?.slice(0, 4))).toEqual([
        '1F96',
        '1F96',
        '1F96',
        '5510',
      ]);

      emptyBodies = 'all';
      const empty = await transcript(`${watchUrl(EMPTY_FIRST)}&lang=cs`);
      expect(empty.statusCode).toBe(502);
      expect(empty.json().error).toBe('upstream_error');
      expect(empty.json().message).toMatch(/blocked the request .*an empty answer/);
    } finally {
      emptyBodies = 'none';
    }
    // Gated on every client: each client of the chain is asked once (IOS, which answered the empty
    // body above, first) and the gated URLs are never fetched at all.
    replay.requests.length = 0;
    const gated = await transcript(`${watchUrl(BOTH_GATED)}&lang=en`);
    expect(gated.statusCode).toBe(502);
    expect(players()).toEqual(
      ['IOS', ...DEFAULT_PLAYER_CLIENTS.filter((c) => c !== 'IOS')].map((c) => `${c}:${BOTH_GATED}`),
    );
    expect(timedtexts()).toHaveLength(0);
    expect(gated.headers['x-credits-charged']).toBeUndefined();
    expect(await balance()).toBe(before - 1);
  });

  it('maps captions disabled to 404 transcript_unavailable (native) and 503 for speech recognition', async () => {
    const before = await balance();
    const native = await transcript(`${watchUrl('dsMFmonKDD4')}&mode=native`);
    expect(native.statusCode).toBe(404);
    expect(native.json().error).toBe('transcript_unavailable');
    for (const mode of ['auto', 'generate']) {
      const res = await transcript(`${watchUrl('dsMFmonKDD4')}&mode=${mode}`);
      expect(res.statusCode).toBe(503);
      expect(res.json().error).toBe('provider_unavailable');
      expect(res.json().message).toMatch(/speech recognition.*configured/);
    }
    expect((await transcript(watchUrl('dsMFmonKDD4'))).statusCode).toBe(503); // auto is the default
    expect((await transcript(`${watchUrl(VIDEO)}&mode=generate`)).statusCode).toBe(503);
    expect(await balance()).toBe(before);
  });

  it('maps the platform states: age-restricted 403, private, removed, unplayable and unknown 404', async () => {
    const before = await balance();
    const cases: Array<[string, number, string]> = [
      ['Njp5uhTorCo', 403, 'forbidden'],
      ['m8uHb5jIGN8', 404, 'not_found'],
      ['irauhITDrsE', 404, 'not_found'],
      ['5YceQ8YqYMc', 404, 'not_found'],
      ['zzzzzzzzzzz', 404, 'not_found'],
    ];
    for (const [id, status, error] of cases) {
      for (const mode of ['native', 'generate']) {
        const res = await transcript(`${watchUrl(id)}&mode=${mode}`);
        expect([id, mode, res.statusCode, res.json().error]).toEqual([id, mode, status, error]);
      }
    }
    expect(await balance()).toBe(before);
  });

  it('answers 400 naming the parameter for bad input, charging nothing', async () => {
    const before = await balance();
    const cases: Array<[string, string, RegExp?]> = [
      ['', 'url'],
      ['url=not%20a%20url', 'url', /not a URL/],
      ['url=ftp%3A%2F%2Fyoutube.example%2Fx', 'url'],
      [
        `url=${encodeURIComponent('https://www.dailymotion.com/video/x7tgad0')}`,
        'url',
        /www\.dailymotion\.com.*not supported yet/,
      ],
      [`url=${encodeURIComponent('https://vimeo.com/123456')}`, 'url', /not supported yet/],
      [`url=${encodeURIComponent('https://www.youtube.com/@Fireship')}`, 'url', /not a video URL/],
      [`${watchUrl(VIDEO)}&chunkSize=49`, 'chunkSize'],
      [`${watchUrl(VIDEO)}&chunkSize=10001`, 'chunkSize'],
      [`${watchUrl(VIDEO)}&chunkSize=abc`, 'chunkSize'],
      [`${watchUrl(VIDEO)}&mode=whisper`, 'mode', /native, auto, generate/],
      [`${watchUrl(VIDEO)}&lang=${encodeURIComponent('en;drop')}`, 'lang'],
      [`${watchUrl(VIDEO)}&text=maybe`, 'text'],
    ];
    for (const [query, param, message] of cases) {
      const res = await transcript(query);
      expect([query, res.statusCode, res.json().error, res.json().details]).toEqual([
        query,
        400,
        'invalid_request',
        param,
      ]);
      expect(res.json().message).toContain(param);
      if (message) expect(res.json().message).toMatch(message);
    }
    expect(replay.requests).toHaveLength(0);
    expect(await balance()).toBe(before);
  });

  it('needs an API key', async () => {
    expect((await get(`/v1/transcript?${watchUrl(VIDEO)}`, '')).statusCode).toBe(401);
  });
});

describe('GET /v1/vidsite/transcript and /v1/youtube/transcript', () => {
  it('takes url, videoId or id and answers like /v1/transcript under both paths', async () => {
    const expected = { content: CUES, lang: 'en', availableLangs: LANGS };
    for (const path of ['/v1/vidsite/transcript', '/v1/youtube/transcript']) {
      for (const query of [
        `videoId=${VIDEO}`,
        `id=${VIDEO}`,
        `url=${encodeURIComponent(`https://m.youtube.com/shorts/${VIDEO}`)}`,
      ]) {
        const res = await get(`${path}?${query}&mode=native`);
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual(expected);
        expect(res.headers['x-credits-charged']).toBe('1');
      }
    }
  });

  it('answers 400 for none, several or a bad reference', async () => {
    const none = await get('/v1/vidsite/transcript?lang=en');
    expect([none.statusCode, none.json().details]).toEqual([400, 'url']);
    const two = await get(`/v1/youtube/transcript?videoId=${VIDEO}&id=${VIDEO}`);
    expect([two.statusCode, two.json().details]).toEqual([400, 'id']);
    const bad = await get('/v1/vidsite/transcript?videoId=nope');
    expect([bad.statusCode, bad.json().details]).toEqual([400, 'videoId']);
  });
});

describe('GET /v1/vidsite/video', () => {
  it('answers every field from the player and the watch page, billed 1 credit', async () => {
    const res = await get(`/v1/vidsite/video?id=${VIDEO}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(res.json()).toEqual({
      id: VIDEO,
      title: 'Surface Go Review - It’s Awesome',
      description: expect.stringMatching(/^Dave2D review of the Microsoft Surface Go/),
      duration: 316,
      channel: { id: 'UCVYamHliCI9rw1tHR1xbkfw', name: 'Dave2D' },
      tags: expect.arrayContaining(['Surface Go']),
      thumbnail: 'https://i.ytimg.com/vi/GJLlxj_dtq8/maxresdefault.jpg',
      uploadDate: '2018-08-02T13:00:08.000Z',
      viewCount: 1856109,
      likeCount: 43864,
      isLive: false,
      transcriptLanguages: LANGS,
      chapters: expect.arrayContaining([{ title: 'Build Quality', startMs: 39_160, endMs: 66_010 }]),
    });
    expect(replay.count('/watch')).toBe(1);
    expect(players()).toEqual([]); // the player answer cached by the transcript requests above
  });

  it('is the same under /v1/youtube/video, for any URL form, from the cache', async () => {
    const a = await get(`/v1/vidsite/video?id=${VIDEO}`);
    const b = await get(`/v1/youtube/video?id=${encodeURIComponent(`https://youtu.be/${VIDEO}`)}`);
    expect(b.statusCode).toBe(200);
    expect(b.json()).toEqual(a.json());
    expect(replay.requests).toHaveLength(0);
  });

  it('serves age-restricted metadata (200) with what is known; 404 for private, removed and unknown', async () => {
    const age = await get('/v1/vidsite/video?id=Njp5uhTorCo');
    expect(age.statusCode).toBe(200);
    expect(age.json()).toMatchObject({ id: 'Njp5uhTorCo', duration: 452, likeCount: null, uploadDate: null });
    expect(Object.keys(age.json())).toHaveLength(13);
    const before = await balance();
    for (const id of ['m8uHb5jIGN8', 'irauhITDrsE', 'zzzzzzzzzzz']) {
      const res = await get(`/v1/vidsite/video?id=${id}`);
      expect([id, res.statusCode, res.json().error]).toEqual([id, 404, 'not_found']);
    }
    expect(await balance()).toBe(before);
  });

  it('reads 2023 pages: likes from the like button, a bare upload date, 40 caption languages', async () => {
    const v = (await get('/v1/vidsite/video?id=2lAe1cqCOXo')).json();
    expect(v.likeCount).toBe(3505018);
    expect(v.uploadDate).toBe('2019-12-05T00:00:00.000Z');
    expect(v.transcriptLanguages).toHaveLength(40);
    expect(v.channel).toEqual({ id: 'UCBR8-60-B28hp2BmDPdntcQ', name: 'YouTube' });
  });

  it('answers 400 naming id for a missing or bad id', async () => {
    for (const url of [
      '/v1/vidsite/video',
      '/v1/vidsite/video?id=',
      '/v1/youtube/video?id=https%3A%2F%2Fvimeo.com%2F1',
    ]) {
      const res = await get(url);
      expect([url, res.statusCode, res.json().details]).toEqual([url, 400, 'id']);
    }
  });
});

describe('OpenAPI', () => {
  it('documents the vidsite paths once; the youtube aliases are named, not listed', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining(['/v1/transcript', '/v1/vidsite/transcript', '/v1/vidsite/video']),
    );
    expect(spec.paths['/v1/youtube/transcript']).toBeUndefined();
    expect(spec.paths['/v1/youtube/video']).toBeUndefined();
    expect(spec.paths['/v1/vidsite/video'].get.description).toContain('/v1/youtube/video');
  });
});
