// Caption tracks gated behind a proof-of-origin token (exp=xpe), end to end: a real app whose
// UNFURL_UPSTREAM_YOUTUBE is the replay of the platform's captures — its gated URLs answer an empty
// body unless they carry the right `pot` — and whose token source is a loopback stand-in of an
// operator-run bgutil provider, a static token, or nothing at all (today's 502).
import { describe, expect, it } from 'vitest';
import { DEFAULT_PLAYER_CLIENTS } from '../../../src/sources/youtube/client-table.js';
import type { TestApp } from '../../support/app.js';
import { type PotProvider, potFor, startPotProvider } from '../../support/pot-provider.js';
import { useReplayApp } from '../../support/replay-app.js';
import { CAPTURES, startYouTubeReplay, type YouTubeReplay } from '../../support/youtube-replay.js';

// The captured answer whose manual English track needs a PO token is of this video: its caption URLs
// say v=GJLlxj_dtq8, so a token bound to it is the one the platform takes. Every client gets it here.
const VIDEO = 'GJLlxj_dtq8';
// Made-up ids answered with the same gated capture, for the provider's failures (fresh bindings).
const DOWN = 'potDown0001';
const SLOW = 'potSlow0001';
const GARBAGE = 'potJunk0001';
const STATIC_TOKEN = 'MnQtStaticTokenForTheWholeServer0123456789';
const VISITOR = 'CgtmS09UUW54WUQ5VSjGu6bCBjIKCgJERRIEEgAgRDoMCAEg78fRoOW456RoWMrtgeuL0_SSmQE%3D';
const FIRST_CLIENT = DEFAULT_PLAYER_CLIENTS[0];

const CUES = [
  { text: 'Hey, this is just a test', offset: 0, duration: 1540, lang: 'en' },
  { text: 'this is not the original transcript', offset: 1540, duration: 4160, lang: 'en' },
  { text: 'just something shorter, I made up for testing', offset: 5700, duration: 3239, lang: 'en' },
];

const gatedReplay = () =>
  startYouTubeReplay({
    players: {
      [VIDEO]: { '*': CAPTURES.playerPoToken },
      [DOWN]: { '*': CAPTURES.playerPoToken },
      [SLOW]: { '*': CAPTURES.playerPoToken },
      [GARBAGE]: { '*': CAPTURES.playerPoToken },
    },
    // The platform takes a token bound to the video the URL is for, or the server's static one.
    poToken: (pot, q) => pot === potFor(q.get('v') ?? '') || pot === STATIC_TOKEN,
  });

interface Stage {
  replay: YouTubeReplay;
  t: TestApp;
  key: string;
}

/** The hooks of a describe whose replay and app run beside a PO token provider stand-in, started first:
 *  its URL goes in `env` (the app reads it when it starts), it is handed to `got`, and it closes with
 *  the replay. Answers the stage, filled in before the tests. */
function usePotProviderApp(
  env: Record<string, string>,
  startReplay: () => Promise<YouTubeReplay>,
  got: (p: PotProvider) => void,
): Stage {
  const s = {} as Stage;
  useReplayApp(
    {
      upstream: 'YOUTUBE',
      start: async () => {
        const provider = await startPotProvider();
        got(provider);
        env.UNFURL_YOUTUBE_POT_PROVIDER_URL = provider.url;
        const replay = await startReplay();
        const close = replay.close;
        return Object.assign(replay, {
          close: () => Promise.all([close(), provider.close()]).then(() => {}),
        });
      },
      env,
      clearRequests: true,
    },
    (stage) => Object.assign(s, stage),
  );
  return s;
}

const watchUrl = (id: string) => `url=${encodeURIComponent(`https://www.youtube.com/watch?v=${id}`)}`;
const transcript = (s: Stage, id: string, lang: string) =>
  s.t.call(s.key, { method: 'GET', url: `/v1/transcript?${watchUrl(id)}&lang=${lang}` });
const balance = async (s: Stage) =>
  (await s.t.call(s.key, { method: 'GET', url: '/v1/account' })).json().credits as number;
const timedtexts = (s: Stage) => s.replay.requests.filter((r) => r.path === '/api/timedtext');

describe('with an operator-run PO token provider', () => {
  let provider: PotProvider;
  // The app's settings are read when it starts, after the stand-ins: the provider's URL goes in then.
  const env: Record<string, string> = { UNFURL_YOUTUBE_POT_TIMEOUT_MS: '500' };
  const s = usePotProviderApp(env, gatedReplay, (p) => {
    provider = p;
  });

  it('fetches the gated track with the video-bound token, asking the provider once for two requests', async () => {
    const before = await balance(s);
    const res = await transcript(s, VIDEO, 'en');
    expect(res.statusCode).toBe(200);
    expect(res.json().content).toEqual(CUES);
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(provider.calls).toEqual([{ content_binding: VIDEO, bypass_cache: false }]);
    const [q] = timedtexts(s).map((r) => r.query);
    expect(q?.get('exp')).toBe('xpe');
    expect(q?.get('pot')).toBe(potFor(VIDEO));
    expect(q?.get('potc')).toBe('1');
    expect(q?.get('c')).toBe(FIRST_CLIENT);
    // Another request for the video (the platform's translation of the gated track) reuses the token.
    const nl = await transcript(s, VIDEO, 'nl');
    expect(nl.statusCode).toBe(200);
    expect(nl.json().lang).toBe('nl');
    expect(timedtexts(s).map((r) => [r.query.get('tlang'), r.query.get('pot')])).toEqual([
      [null, potFor(VIDEO)],
      ['nl', potFor(VIDEO)],
    ]);
    expect(provider.calls).toHaveLength(1);
    expect(await balance(s)).toBe(before - 2);
  });

  it.each([
    ['down', DOWN, /UNFURL_YOUTUBE_POT_PROVIDER_URL\) answered HTTP 500/],
    ['slow', SLOW, /UNFURL_YOUTUBE_POT_PROVIDER_URL\) did not answer within 500 ms/],
    ['garbage', GARBAGE, /UNFURL_YOUTUBE_POT_PROVIDER_URL\) answered something that is not JSON/],
  ] as const)(
    'a provider that is %s: 503 naming the setting, quickly, unbilled',
    async (mode, id, message) => {
      provider.mode = mode;
      provider.calls.length = 0;
      try {
        const before = await balance(s);
        const started = Date.now();
        const res = await transcript(s, id, 'en');
        expect(Date.now() - started).toBeLessThan(3000);
        expect(res.statusCode).toBe(503);
        expect(res.json().error).toBe('provider_unavailable');
        expect(res.json().message).toMatch(message);
        expect(res.headers['x-credits-charged']).toBeUndefined();
        expect(await balance(s)).toBe(before);
        // Every client of the chain offered the gated track; the provider was asked once, no URL fetched.
        expect(provider.calls).toHaveLength(1);
        expect(timedtexts(s)).toHaveLength(0);
      } finally {
        provider.mode = 'ok';
      }
    },
  );
});

describe('with a static PO token', () => {
  const s = {} as Stage;
  useReplayApp(
    {
      upstream: 'YOUTUBE',
      start: gatedReplay,
      env: { UNFURL_YOUTUBE_PO_TOKEN: STATIC_TOKEN, UNFURL_YOUTUBE_VISITOR_DATA: VISITOR },
      clearRequests: true,
    },
    (stage) => Object.assign(s, stage),
  );

  it('fetches the gated track with the configured token and its visitor data', async () => {
    for (const lang of ['en', 'nl']) {
      const res = await transcript(s, VIDEO, lang);
      expect(res.statusCode).toBe(200);
      expect(res.json().lang).toBe(lang);
    }
    const fetched = timedtexts(s);
    expect(fetched.map((r) => r.query.get('pot'))).toEqual([STATIC_TOKEN, STATIC_TOKEN]);
    expect(fetched.map((r) => r.headers['x-goog-visitor-id'])).toEqual([VISITOR, VISITOR]);
  });
});

describe('without a token source', () => {
  const s = {} as Stage;
  useReplayApp({ upstream: 'YOUTUBE', start: gatedReplay, clearRequests: true }, (stage) =>
    Object.assign(s, stage),
  );

  it('gives the gated track up as before: 502, the gated URL never fetched, unbilled', async () => {
    const before = await balance(s);
    const res = await transcript(s, VIDEO, 'en');
    expect(res.statusCode).toBe(502);
    expect(res.json().error).toBe('upstream_error');
    expect(res.json().message).toMatch(/proof-of-origin token/);
    expect(timedtexts(s)).toHaveLength(0);
    expect(await balance(s)).toBe(before);
  });
});

describe('a client whose player request carries a token (the desktop client, put in the chain)', () => {
  let provider: PotProvider;
  const env: Record<string, string> = {
    UNFURL_YOUTUBE_POT_TIMEOUT_MS: '500',
    UNFURL_YOUTUBE_CLIENTS: '["WEB", "ANDROID"]',
  };
  const s = usePotProviderApp(env, startYouTubeReplay, (p) => {
    provider = p;
  });
  const players = () => s.replay.requests.filter((r) => r.path === '/youtubei/v1/player');
  const OPEN_VIDEO = '2lAe1cqCOXo';

  it('sends the video-bound token in the player request of that client only', async () => {
    const res = await s.t.call(s.key, { method: 'GET', url: `/v1/transcript?${watchUrl(OPEN_VIDEO)}` });
    expect(res.statusCode).toBe(200);
    const [web] = players();
    expect(web?.client).toBe('WEB');
    expect(web?.body?.serviceIntegrityDimensions).toEqual({ poToken: potFor(OPEN_VIDEO) });
    expect(provider.calls).toEqual([{ content_binding: OPEN_VIDEO, bypass_cache: false }]);
    // The caption track itself is open: no token in its URL.
    expect(timedtexts(s).map((r) => r.query.get('pot'))).toEqual([null]);
  });

  it('a provider that is down passes the walk to the next client, which answers', async () => {
    provider.mode = 'down';
    try {
      const open = await s.t.call(s.key, { method: 'GET', url: `/v1/transcript?${watchUrl('GJLlxj_dtq8')}` });
      expect(open.statusCode).toBe(200);
      expect(players().map((r) => r.client)).toEqual(['ANDROID']);
      expect(players()[0]?.body?.serviceIntegrityDimensions).toBeUndefined();
    } finally {
      provider.mode = 'ok';
    }
  });
});
