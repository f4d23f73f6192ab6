// The social network: the page parser on constructed pages, and GET /v1/transcript and media
// location end to end with UNFURL_UPSTREAM_FACEBOOK pointing at a loopback replay.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFacebookPage } from '../../../src/sources/facebook/page.js';
import type { TestApp } from '../../support/app.js';
import { useReplayApp } from '../../support/replay-app.js';
import {
  CONSTRUCTED_FB,
  type FacebookReplay,
  LOGIN_ID,
  QUIET_ID,
  REEL_ID,
  startFacebookReplay,
  WATCH_ID,
} from './replay.js';

const fixture = (name: string) => fs.readFileSync(path.join(CONSTRUCTED_FB, name), 'utf8');

describe('parseFacebookPage', () => {
  it('reads a watch page: legacy files (SD first), duration, caption locales, title, owner, date', () => {
    expect(parseFacebookPage(fixture(`watch-${WATCH_ID}.html`), WATCH_ID)).toEqual({
      kind: 'video',
      video: {
        id: WATCH_ID,
        urls: [
          'https://video-iad3-1.xx.fbcdn.net/v/t42.1790-2/constructed_sd.mp4?_nc_cat=1&oh=00_x&oe=6700000',
          'https://video-iad3-1.xx.fbcdn.net/v/t42.1790-2/constructed_hd.mp4?_nc_cat=1&oh=00_y&oe=6700000',
        ],
        durationSec: 12.48,
        captions: [
          {
            lang: 'en-US',
            url: 'https://www.facebook.com/video/captions/constructed/en_US.srt?oh=1',
            auto: false,
          },
          {
            lang: 'es-LA',
            url: 'https://video.xx.fbcdn.net/v/t39/captions/constructed_es_LA.vtt?oh=2',
            auto: true,
          },
        ],
        post: {
          title: 'Constructed launch',
          description: null,
          owner: { id: '100000000000001', name: 'Constructed Space' },
          publishedAt: 1714560000,
          thumbnail: null,
        },
      },
    });
  });

  it('reads a reel: progressive files (SD first), a lone captions_url in the page locale', () => {
    const parsed = parseFacebookPage(fixture(`reel-${REEL_ID}.html`), REEL_ID);
    if (parsed.kind !== 'video') throw new Error(parsed.kind);
    expect(parsed.video.urls).toEqual([
      'https://video.xx.fbcdn.net/o1/v/t2/constructed_reel_sd.mp4?efg=sd',
      'https://video.xx.fbcdn.net/o1/v/t2/constructed_reel_hd.mp4?efg=hd',
    ]);
    expect(parsed.video.durationSec).toBe(7.5);
    expect(parsed.video.captions).toEqual([
      {
        lang: 'fr-FR',
        url: 'https://video.xx.fbcdn.net/v/t39/captions/constructed_reel.vtt?oh=3',
        auto: false,
      },
    ]);
  });

  it('tells removed pages, login walls and unknown layouts apart', () => {
    expect(parseFacebookPage(fixture('unavailable.html'), '1')).toEqual({ kind: 'missing' });
    expect(parseFacebookPage('<form id="login_form" action="/login/"></form>', '1')).toEqual({
      kind: 'login',
    });
    expect(
      parseFacebookPage('<html><script type="application/json" data-sjs>{"a":1}</script></html>', null),
    ).toEqual({
      kind: 'unknown',
    });
  });
});

let replay: FacebookReplay;
let t: TestApp;
let key: string;

useReplayApp({ upstream: 'FACEBOOK', start: startFacebookReplay, clearRequests: true }, (stage) => {
  ({ replay, t, key } = stage);
});

const transcript = (url: string, extra = '') =>
  t.call(key, { method: 'GET', url: `/v1/transcript?url=${encodeURIComponent(url)}${extra}` });
const balance = async () =>
  (await t.call(key, { method: 'GET', url: '/v1/account' })).json().credits as number;

describe('GET /v1/transcript on the social network', () => {
  it('answers the uploaded track (SRT) by default, billed 1 credit', async () => {
    const before = await balance();
    const res = await transcript(`https://www.facebook.com/NASA/videos/${WATCH_ID}/`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      lang: 'en-US',
      availableLangs: ['en-US', 'es-LA'],
      content: [
        { text: 'T-minus ten seconds.', offset: 500, duration: 2250, lang: 'en-US' },
        { text: 'Engines are lit.', offset: 2750, duration: 2250, lang: 'en-US' },
        { text: 'Liftoff, we have liftoff!', offset: 5200, duration: 4700, lang: 'en-US' },
      ],
    });
    expect(await balance()).toBe(before - 1);
    expect(replay.requests.find((r) => r.path.endsWith('.srt'))?.referer).toBe(
      `https://www.facebook.com/watch/?v=${WATCH_ID}`,
    );
  });

  it('answers the automatic track (WebVTT) in the language asked for', async () => {
    const res = await transcript(`https://m.facebook.com/watch/?v=${WATCH_ID}`, '&lang=es&text=true');
    expect(res.json()).toEqual({
      lang: 'es-LA',
      availableLangs: ['en-US', 'es-LA'],
      content: 'Diez segundos. Los motores están encendidos.',
    });
  });

  it('follows share/ links and the fb.watch host, and reads reels', async () => {
    const viaShare = await transcript('https://www.facebook.com/share/v/1AbCdEf/', '&mode=native');
    expect([viaShare.statusCode, viaShare.json().lang]).toEqual([200, 'en-US']);
    const viaShort = await transcript('https://fb.watch/fbWatch1/', '&mode=native');
    expect([viaShort.statusCode, viaShort.json().lang]).toEqual([200, 'en-US']);
    const reel = await transcript('https://www.facebook.com/share/r/2GhIjK/', '&text=true');
    expect(reel.json()).toEqual({
      lang: 'fr-FR',
      availableLangs: ['fr-FR'],
      content: 'Bonjour tout le monde et bienvenue.',
    });
  });

  it('maps no captions to 404/503, removed videos to 404 and login walls to 403, charging nothing', async () => {
    const before = await balance();
    const cases: Array<[string, string, number, string]> = [
      [QUIET_ID, 'native', 404, 'transcript_unavailable'],
      [QUIET_ID, 'auto', 503, 'provider_unavailable'],
      [QUIET_ID, 'generate', 503, 'provider_unavailable'],
      ['40000000000000004', 'native', 404, 'not_found'],
      ['40000000000000004', 'generate', 404, 'not_found'],
      [LOGIN_ID, 'native', 403, 'forbidden'],
      [LOGIN_ID, 'auto', 403, 'forbidden'],
    ];
    for (const [id, mode, status, error] of cases) {
      const res = await transcript(`https://www.facebook.com/watch/?v=${id}`, `&mode=${mode}`);
      expect([id, mode, res.statusCode, res.json().error]).toEqual([id, mode, status, error]);
    }
    expect(await balance()).toBe(before);
  });
});

describe('media of the social network', () => {
  it('is located (SD file first) and downloads through the override', async () => {
    const { location } = await t.services.platforms.locate(`https://www.facebook.com/reel/${REEL_ID}`);
    expect(location).toMatchObject({
      upstream: 'facebook',
      url: 'https://video.xx.fbcdn.net/o1/v/t2/constructed_reel_sd.mp4?efg=sd',
      durationSec: 7.5,
      kind: 'video',
    });
    const bytes = await t.services.scratch.with(
      'fb',
      async (dir) => (await t.services.downloader.download(location, dir)).bytes,
    );
    expect(bytes).toBe(2048);
  });
});
