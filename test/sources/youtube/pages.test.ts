// Walls and watch pages on the captures: the reCAPTCHA page, the EU consent page, the bot check
// inside a player answer; ytInitialPlayerResponse / ytInitialData out of every watch page layout
// (2020 window[...] assignments, 2021+ var, pbj JSON) and the likes under the video; and the video
// metadata assembled from a mobile player answer plus a watch page.
import { describe, expect, it } from 'vitest';
import type { SafeResponse } from '../../../src/net/safe-fetch.js';
import { consentValue, isBlocked, isRecaptchaPage } from '../../../src/sources/youtube/blocks.js';
import { parsePlayer } from '../../../src/sources/youtube/player.js';
import { isoDate, toVideo } from '../../../src/sources/youtube/video.js';
import { likeCountFromNext, parseWatchPage } from '../../../src/sources/youtube/watch-page.js';
import { CAPTURES, youtubeFixture, youtubeJson, youtubeText } from '../../support/youtube-replay.js';

const answer = (
  body: Buffer | string,
  status = 200,
  headers: SafeResponse['headers'] = {},
): SafeResponse => ({
  status,
  headers,
  body: Buffer.from(body),
  url: 'https://www.youtube.com/x',
  redirects: [],
  truncated: false,
  contentType: null,
});

describe('walls', () => {
  it('recognises the reCAPTCHA page and nothing else as one', () => {
    expect(isRecaptchaPage(youtubeText(CAPTURES.recaptchaPage))).toBe(true);
    expect(isRecaptchaPage(youtubeText(CAPTURES.watchPage))).toBe(false);
    expect(isRecaptchaPage(youtubeText(CAPTURES.consentPage))).toBe(false);
  });

  it('reads the consent form value of the EU interstitial', () => {
    expect(consentValue(youtubeText(CAPTURES.consentPage))).toBe('cb.20210328-17-p0.de+FX+119');
    expect(consentValue(youtubeText(CAPTURES.watchPage))).toBeNull();
  });

  it('isBlocked: bot check, captcha page and sorry redirects — not age gates, errors or good answers', () => {
    expect(isBlocked(answer(youtubeFixture(CAPTURES.playerBotCheck)))).toBe(true);
    expect(isBlocked(answer(youtubeFixture(CAPTURES.recaptchaPage)))).toBe(true);
    expect(isBlocked(answer('', 302, { location: 'https://www.google.com/sorry/index?continue=x' }))).toBe(
      true,
    );
    for (const name of [
      CAPTURES.playerOk,
      CAPTURES.playerAge,
      CAPTURES.playerUnavailable,
      CAPTURES.transcriptXml,
    ]) {
      expect(isBlocked(answer(youtubeFixture(name)))).toBe(false);
    }
    expect(isBlocked(answer(youtubeFixture(CAPTURES.watchPage)))).toBe(false);
    expect(isBlocked(answer(''))).toBe(false);
    expect(isBlocked(answer('', 302, { location: 'https://www.youtube.com/watch?v=x' }))).toBe(false);
  });
});

describe('parseWatchPage and likes', () => {
  it.each([
    [CAPTURES.watchPage, 'GJLlxj_dtq8', 43864],
    ['pytube/2lAe1cqCOXo.watch.html', '2lAe1cqCOXo', 3505018],
    ['pytube/WXxV9g7lsFE.watch.html', 'WXxV9g7lsFE', 2289647],
    ['node-ytdl-core/regular.watch.html', '_HSylqgVYQI', 2347],
    ['node-ytdl-core/regular.watch.json', '_HSylqgVYQI', 2347],
    ['node-ytdl-core/live-now.watch.html', '5qap5aO4i9A', 3803872],
    ['node-ytdl-core/longest-upload.watch.html', 'TceijYjxdrQ', 2691],
    ['node-ytdl-core/no-embed.watch.json', 'GFg8BP01F5Q', 24614],
    ['node-ytdl-core/age-restricted.watch.html', 'LuZu9N53Vd0', 43317],
  ])('%s → player of %s, %i likes', (file, id, likes) => {
    const page = parseWatchPage(youtubeText(file));
    expect(parsePlayer(page.player).details?.videoId).toBe(id);
    expect(likeCountFromNext(page.initialData)).toBe(likes);
  });

  it('finds no likes where the page shows none, and survives pages without the documents', () => {
    for (const file of ['pytube/irauhITDrsE.watch.html', 'node-ytdl-core/private.watch.json']) {
      expect(likeCountFromNext(parseWatchPage(youtubeText(file)).initialData)).toBeNull();
    }
    for (const junk of ['', '<html></html>', youtubeText(CAPTURES.consentPage), '[1,2]', '{"a":']) {
      expect(parseWatchPage(junk)).toEqual({ player: null, initialData: null });
    }
    expect(likeCountFromNext(null)).toBeNull();
  });
});

describe('toVideo', () => {
  const mobile = parsePlayer(youtubeJson(CAPTURES.playerOk));
  const page = parseWatchPage(youtubeText(CAPTURES.watchPage));
  const watch = { player: parsePlayer(page.player), likeCount: likeCountFromNext(page.initialData) };

  it('fills every field from the mobile player and the watch page', () => {
    expect(toVideo('GJLlxj_dtq8', mobile, watch)).toEqual({
      id: 'GJLlxj_dtq8',
      title: 'Surface Go Review - It’s Awesome',
      description: expect.stringMatching(/^Dave2D review of the Microsoft Surface Go/),
      duration: 316,
      channel: { id: 'UCVYamHliCI9rw1tHR1xbkfw', name: 'Dave2D' },
      tags: expect.arrayContaining(['Dave2D', 'Surface Go']),
      thumbnail: 'https://i.ytimg.com/vi/GJLlxj_dtq8/maxresdefault.jpg',
      uploadDate: '2018-08-02T13:00:08.000Z',
      viewCount: 1856109,
      likeCount: 43864,
      isLive: false,
      transcriptLanguages: ['zh', 'cs', 'en', 'de', 'hi', 'ja', 'ko', 'es'],
      chapters: [], // this watch holds no chapter marks (chapters.test.ts reads them)
    });
  });

  it('answers null for what only the watch page knows when it could not be had', () => {
    const v = toVideo('GJLlxj_dtq8', mobile, null);
    expect(v.uploadDate).toBeNull();
    expect(v.likeCount).toBeNull();
    expect(v.thumbnail).toBe('https://i.ytimg.com/vi/GJLlxj_dtq8/sddefault.jpg');
    expect(Object.keys(v)).toHaveLength(13);
  });

  it('takes likes from the like button when the microformat has none (2023 and older pages)', () => {
    const old = parseWatchPage(youtubeText('pytube/2lAe1cqCOXo.watch.html'));
    const web = parsePlayer(old.player);
    const v = toVideo('2lAe1cqCOXo', parsePlayer(youtubeJson('pytube/2lAe1cqCOXo.player.json')), {
      player: web,
      likeCount: likeCountFromNext(old.initialData),
    });
    expect(v.likeCount).toBe(3505018);
    expect(v.uploadDate).toBe('2019-12-05T00:00:00.000Z');
    expect(v.transcriptLanguages).toHaveLength(40);
  });

  it('live now: isLive, no duration', () => {
    const live = parseWatchPage(youtubeText('node-ytdl-core/live-now.watch.html'));
    const web = parsePlayer(live.player);
    const v = toVideo('5qap5aO4i9A', web, { player: web, likeCount: 1 });
    expect(v.isLive).toBe(true);
    expect(v.duration).toBeNull();
  });

  it('isoDate: offsets to UTC, bare dates at midnight UTC, junk to null', () => {
    expect(isoDate('2018-08-02T06:00:08-07:00')).toBe('2018-08-02T13:00:08.000Z');
    expect(isoDate('2019-12-05')).toBe('2019-12-05T00:00:00.000Z');
    expect(isoDate('yesterday')).toBeNull();
    expect(isoDate(null)).toBeNull();
  });
});
