// The photo-sharing site: shortcodes → media ids and the LSD token checked against the captured
// pages, the post-query parser on constructed answers, and transcripts and media end to end with
// UNFURL_UPSTREAM_INSTAGRAM pointing at a loopback replay.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shortcodeToMediaId } from '../../../src/sources/instagram/ids.js';
import { lsdToken, parseInstagramAnswer } from '../../../src/sources/instagram/media.js';
import type { TestApp } from '../../support/app.js';
import { useReplayApp } from '../../support/replay-app.js';
import {
  CAPTURED_LSD,
  CONSTRUCTED_IG,
  type InstagramReplay,
  SHARED_IG,
  startInstagramReplay,
} from './replay.js';

const captured = (name: string) => fs.readFileSync(path.join(SHARED_IG, name), 'utf8');
const answer = (name: string) => JSON.parse(fs.readFileSync(path.join(CONSTRUCTED_IG, name), 'utf8'));

describe('photo-sharing helpers on the captured pages', () => {
  it('turns shortcodes into the media ids the pages name (al:ios:url)', () => {
    for (const [file, code] of [
      ['p-COn3M4TnRi1.multi-photo.html', 'COn3M4TnRi1'],
      ['p-CPQjO5RIIO9.video.html', 'CPQjO5RIIO9'],
      ['reel-CN2VQ1yI_MA.clip.html', 'CN2VQ1yI_MA'],
    ]) {
      const id = /instagram:\/\/media\?id=(\d+)/.exec(captured(file!))?.[1];
      expect([code, shortcodeToMediaId(code!)]).toEqual([code, id]);
    }
  });

  it('drops the 28-character suffix of private shortcodes', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{28}$/), (suffix) => {
        expect(shortcodeToMediaId(`CPQjO5RIIO9${suffix}`)).toBe('2580717541674484669');
      }),
      { numRuns: 30 },
    );
  });

  it('finds the LSD token in a captured page (prettier-formatted) and in compact markup', () => {
    expect(lsdToken(captured('p-CPQjO5RIIO9.video.html'))).toBe(CAPTURED_LSD);
    expect(lsdToken(captured('reel-CN2VQ1yI_MA.clip.html'))).toMatch(/^[A-Za-z0-9_-]{8,}$/);
    expect(lsdToken('x["LSD",[],{"token":"AbC-1"},323]y')).toBe('AbC-1');
    expect(lsdToken('<html>nothing</html>')).toBeNull();
  });
});

describe('parseInstagramAnswer (constructed post-query answers)', () => {
  it('reads a reel: video versions smallest first, duration, caption, author, counts, the largest file', () => {
    expect(parseInstagramAnswer(answer('graphql-2555323354817229568.json'))).toEqual({
      kind: 'media',
      media: {
        shortcode: 'CN2VQ1yI_MA',
        caption: 'Constructed caption of a reel',
        videoUrls: [
          'https://scontent-iad3-1.cdninstagram.com/o1/v/t16/f2/m86/constructed_360.mp4?efg=y&oe=1',
          'https://scontent-iad3-1.cdninstagram.com/o1/v/t16/f2/m86/constructed_480.mp4?efg=z&oe=1',
          'https://scontent-iad3-1.cdninstagram.com/o1/v/t16/f2/m86/constructed_720.mp4?efg=x&oe=1',
        ],
        durationSec: 14.2,
        hasAudio: true,
        post: {
          id: '2555323354817229568',
          takenAt: 1618813084,
          author: {
            username: 'constructed_actor',
            fullName: 'Constructed Actor',
            verified: true,
            avatar: null,
          },
          likes: 120345,
          comments: 987,
          views: 2500000,
          items: [
            {
              type: 'video',
              url: 'https://scontent-iad3-1.cdninstagram.com/o1/v/t16/f2/m86/constructed_720.mp4?efg=x&oe=1',
              width: 720,
              height: 1280,
              durationSec: 14.2,
              thumbnail: 'https://scontent-iad3-1.cdninstagram.com/v/t51/constructed_cover.jpg',
            },
          ],
          carousel: false,
        },
      },
    });
  });

  it('tells photo-only, gated, missing and unknown answers apart', () => {
    const photos = parseInstagramAnswer(answer('graphql-2569264890088593589.json'));
    expect(photos.kind === 'media' && photos.media.videoUrls).toEqual([]);
    expect(parseInstagramAnswer(answer('graphql-2580717541674484669.json'))).toEqual({ kind: 'gated' });
    expect(parseInstagramAnswer(answer('graphql-missing.json'))).toEqual({ kind: 'missing' });
    expect(parseInstagramAnswer({ errors: [{ message: 'rate limited' }] })).toEqual({ kind: 'unknown' });
  });
});

let replay: InstagramReplay;
let t: TestApp;
let key: string;

useReplayApp({ upstream: 'INSTAGRAM', start: startInstagramReplay }, (stage) => {
  ({ replay, t, key } = stage);
});

const transcript = (url: string, extra = '') =>
  t.call(key, { method: 'GET', url: `/v1/transcript?url=${encodeURIComponent(url)}${extra}` });

describe('the photo-sharing site end to end', () => {
  it('has no captions: native → 404, auto and generate → speech recognition (503 without a provider)', async () => {
    const before = (await t.call(key, { method: 'GET', url: '/v1/account' })).json().credits;
    const native = await transcript('https://www.instagram.com/reel/CN2VQ1yI_MA/?igsh=abc', '&mode=native');
    expect([native.statusCode, native.json().error]).toEqual([404, 'transcript_unavailable']);
    for (const mode of ['auto', 'generate']) {
      const res = await transcript('https://www.instagram.com/reel/CN2VQ1yI_MA/', `&mode=${mode}`);
      expect([mode, res.statusCode, res.json().error]).toEqual([mode, 503, 'provider_unavailable']);
    }
    for (const mode of ['native', 'generate']) {
      const removed = await transcript('https://www.instagram.com/p/Czzzzzzzzzz/', `&mode=${mode}`);
      expect([mode, removed.statusCode, removed.json().error]).toEqual([mode, 404, 'not_found']);
      const gated = await transcript('https://www.instagram.com/p/CPQjO5RIIO9/', `&mode=${mode}`);
      expect([mode, gated.statusCode, gated.json().error]).toEqual([mode, 403, 'forbidden']);
    }
    expect((await t.call(key, { method: 'GET', url: '/v1/account' })).json().credits).toBe(before);
  });

  it('locates a reel (smallest video) through the post query and downloads it', async () => {
    const { ref, location } = await t.services.platforms.locate(
      'https://www.instagram.com/share/reel/BAxyz123/',
    );
    expect(ref).toEqual({
      platform: 'instagram',
      id: 'CN2VQ1yI_MA',
      url: 'https://www.instagram.com/reel/CN2VQ1yI_MA/',
    });
    expect(location).toMatchObject({
      upstream: 'instagram',
      url: 'https://scontent-iad3-1.cdninstagram.com/o1/v/t16/f2/m86/constructed_360.mp4?efg=y&oe=1',
      durationSec: 14.2,
      kind: 'video',
    });
    // The query (made once, then cached) asked for the media id the shortcode encodes.
    const queries = replay.requests.filter((r) => r.path === '/api/graphql');
    expect(queries.map((q) => JSON.parse(q.body.get('variables')!))).toContainEqual({
      media_id: '2555323354817229568',
    });
    const bytes = await t.services.scratch.with(
      'ig',
      async (dir) => (await t.services.downloader.download(location, dir)).bytes,
    );
    expect(bytes).toBe(1500);
  });

  it('refuses photo-only, gated and removed posts with the right errors', async () => {
    await expect(
      t.services.platforms.locate('https://www.instagram.com/p/COn3M4TnRi1/'),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      t.services.platforms.locate('https://www.instagram.com/p/CPQjO5RIIO9/'),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(
      t.services.platforms.locate('https://www.instagram.com/tv/Czzzzzzzzzz/'),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});
