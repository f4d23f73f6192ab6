// The microblog's uploaded captions: subtitle renditions of a video's HLS master playlist (constructed
// playlists), parsed purely, and served through GET /v1/transcript with UNFURL_UPSTREAM_X pointing at
// the loopback replay.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { segmentUrls, subtitleRenditions } from '../../../src/sources/x/hls.js';
import type { TestApp } from '../../support/app.js';
import { useReplayApp } from '../../support/replay-app.js';
import { CONSTRUCTED_X, startXReplay } from './replay.js';

const MASTER = 'https://video.twimg.com/ext_tw_video/1790000000000000555/pu/pl/master.m3u8';
const read = (name: string) => fs.readFileSync(path.join(CONSTRUCTED_X, name), 'utf8');

describe('HLS playlists', () => {
  it('lists the subtitle renditions of a master playlist with absolute URLs', () => {
    expect(subtitleRenditions(read('hls-master-captions.m3u8'), MASTER)).toEqual([
      {
        lang: 'en',
        name: 'English',
        url: 'https://video.twimg.com/ext_tw_video/1790000000000000555/pu/pl/subs/en.m3u8?tag=12',
        isDefault: true,
      },
      {
        lang: 'es',
        name: 'Español, subtítulos',
        url: 'https://video.twimg.com/ext_tw_video/1790000000000000555/pu/pl/subs/es.m3u8',
        isDefault: false,
      },
    ]);
    expect(subtitleRenditions(read('hls-master-plain.m3u8'), MASTER)).toEqual([]);
    expect(subtitleRenditions('not a playlist', MASTER)).toEqual([]);
  });

  it('lists the segments of a media playlist, capped', () => {
    const base = 'https://video.twimg.com/ext_tw_video/1790000000000000555/pu/pl/subs/en.m3u8';
    expect(segmentUrls(read('hls-subs-en.m3u8'), base)).toEqual([
      'https://video.twimg.com/ext_tw_video/1790000000000000555/pu/pl/subs/en-0.vtt',
      'https://video.twimg.com/ext_tw_video/1790000000000000555/pu/pl/subs/en-1.vtt',
    ]);
    expect(segmentUrls(read('hls-subs-en.m3u8'), base, 1)).toHaveLength(1);
  });
});

let t: TestApp;
let key: string;

useReplayApp({ upstream: 'X', start: startXReplay }, (stage) => {
  ({ t, key } = stage);
});

const transcript = (url: string, extra = '') =>
  t.call(key, { method: 'GET', url: `/v1/transcript?url=${encodeURIComponent(url)}${extra}` });

describe('GET /v1/transcript on a microblog video with uploaded captions', () => {
  const post = 'https://x.com/constructed_user/status/1790000000000000001';

  it('answers the default track, its segments joined, billed 1 credit', async () => {
    const res = await transcript(post);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(res.json()).toEqual({
      lang: 'en',
      availableLangs: ['en', 'es'],
      content: [
        { text: 'Static fire in three, two, one.', offset: 400, duration: 2600, lang: 'en' },
        { text: 'All engines running.', offset: 3000, duration: 8800, lang: 'en' },
        { text: 'Shutdown, nominal.', offset: 12_000, duration: 9000, lang: 'en' },
      ],
    });
  });

  it('answers another language when asked', async () => {
    const res = await transcript(post, '&lang=es&text=true');
    expect(res.json()).toEqual({
      lang: 'es',
      availableLangs: ['en', 'es'],
      content: 'Encendido en tres, dos, uno.',
    });
  });
});
