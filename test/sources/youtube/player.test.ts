// The /player parser and its error mapping on every recorded player answer: mobile (ANDROID) and web
// clients, OK with tracks, PO-token gated tracks, no captions, age, private, unavailable, unplayable,
// the bot check — plus the web player answers embedded in watch pages and pbj JSON.
import { describe, expect, it } from 'vitest';
import { errorStatus } from '../../../src/http/error-status.js';
import { type PlayerInfo, parsePlayer, playabilityError } from '../../../src/sources/youtube/player.js';
import { parseWatchPage } from '../../../src/sources/youtube/watch-page.js';
import { CAPTURES, youtubeJson, youtubeText } from '../../support/youtube-replay.js';

const player = (name: string) => parsePlayer(youtubeJson(name));
const webPlayer = (name: string): PlayerInfo => parsePlayer(parseWatchPage(youtubeText(name)).player);

describe('parsePlayer on mobile-client answers', () => {
  it('reads an OK answer: details, manual and auto-generated tracks, translations, default track', () => {
    const p = player(CAPTURES.playerOk);
    expect(p.status).toBe('ok');
    expect(p.rawStatus).toBe('OK');
    expect(p.details).toMatchObject({
      videoId: 'GJLlxj_dtq8',
      title: 'Surface Go Review - It’s Awesome',
      lengthSeconds: 316,
      channelId: 'UCVYamHliCI9rw1tHR1xbkfw',
      author: 'Dave2D',
      viewCount: 1856109,
      isLive: false,
      isLiveContent: false,
    });
    expect(p.details?.keywords).toContain('Surface Go');
    expect(p.details?.description).toMatch(/^Dave2D review of the Microsoft Surface Go/);
    expect(p.details?.thumbnails.at(-1)).toEqual({
      url: 'https://i.ytimg.com/vi/GJLlxj_dtq8/sddefault.jpg',
      width: 640,
      height: 480,
    });
    expect(p.tracks.map((t) => `${t.kind}:${t.languageCode}`)).toEqual([
      'manual:zh',
      'manual:cs',
      'manual:en',
      'asr:en',
      'manual:de',
      'manual:hi',
      'manual:ja',
      'manual:ko',
      'manual:es',
    ]);
    expect(p.tracks[3]).toMatchObject({
      vssId: 'a.en',
      name: 'English (auto-generated)',
      isTranslatable: true,
    });
    expect(
      p.tracks.every(
        (t) => !t.poTokenRequired && t.baseUrl.startsWith('https://www.youtube.com/api/timedtext?'),
      ),
    ).toBe(true);
    expect(p.translationLanguages).toHaveLength(18);
    expect(p.translationLanguages[1]).toEqual({ languageCode: 'zh-Hant', name: 'Chinese (Traditional)' });
    expect(p.defaultTrackIndex).toBe(2);
    expect(p.microformat).toBeNull();
    expect(playabilityError(p, 'transcript', 'GJLlxj_dtq8')).toBeNull();
  });

  it('reads a second capture of the same video (another user agent) the same way, with its own URLs', () => {
    const a = player(CAPTURES.playerOk);
    const b = player(CAPTURES.playerOkAgain);
    expect(b.status).toBe('ok');
    expect(b.tracks.map((t) => t.vssId)).toEqual(a.tracks.map((t) => t.vssId));
    expect(b.tracks[0]?.baseUrl).not.toBe(a.tracks[0]?.baseUrl);
    expect(b.details?.videoId).toBe(a.details?.videoId);
  });

  it('flags the tracks whose URLs need a proof-of-origin token (exp=xpe)', () => {
    const p = player(CAPTURES.playerPoToken);
    expect(p.status).toBe('ok');
    expect(p.tracks.filter((t) => t.poTokenRequired).map((t) => t.vssId)).toEqual(['.en']);
  });

  it('has no tracks when captions are disabled', () => {
    const p = player(CAPTURES.playerNoCaptions);
    expect(p.status).toBe('ok');
    expect(p.details?.videoId).toBe('dsMFmonKDD4');
    expect(p.tracks).toEqual([]);
    expect(p.defaultTrackIndex).toBeNull();
  });

  it('maps age restriction to 403 for transcripts but keeps the details for metadata', () => {
    const p = player(CAPTURES.playerAge);
    expect(p.status).toBe('age_restricted');
    expect(p.reason).toBe('This video may be inappropriate for some users.');
    expect(p.details?.title).toMatch(/Self Control/);
    const err = playabilityError(p, 'transcript', 'Njp5uhTorCo');
    expect(err?.code).toBe('forbidden');
    expect(errorStatus[err!.code]).toBe(403);
    expect(err?.message).toMatch(/inappropriate/);
    expect(playabilityError(p, 'metadata', 'Njp5uhTorCo')).toBeNull();
  });

  it('recognises the bot check (retried elsewhere; 502 if it is all that is left)', () => {
    const p = player(CAPTURES.playerBotCheck);
    expect(p.status).toBe('blocked');
    expect(p.details).toBeNull();
    expect(playabilityError(p, 'transcript', 'x')?.code).toBe('upstream_error');
    expect(errorStatus[playabilityError(p, 'metadata', 'x')!.code]).toBe(502);
  });

  it('maps an unavailable video to 404 for every use', () => {
    const p = player(CAPTURES.playerUnavailable);
    expect(p.status).toBe('unavailable');
    expect(p.reason).toBe('This video is unavailable');
    for (const use of ['transcript', 'metadata'] as const) {
      expect(playabilityError(p, use, 'abc')?.code).toBe('not_found');
    }
  });
});

describe('parsePlayer on web-client answers', () => {
  it('reads 40 manual tracks (no auto-generated one) and the microformat', () => {
    const p = player('pytube/2lAe1cqCOXo.player.json');
    expect(p.status).toBe('ok');
    expect(p.tracks).toHaveLength(40);
    expect(p.tracks.every((t) => t.kind === 'manual')).toBe(true);
    expect(p.tracks[7]?.languageCode).toBe('en');
    expect(p.tracks[1]?.name).toBe('Chinese (Hong Kong)');
    expect(p.defaultTrackIndex).toBe(7);
    expect(p.translationLanguages.length).toBeGreaterThan(100);
    expect(p.microformat).toMatchObject({
      uploadDate: '2019-12-05',
      category: 'Entertainment',
      isLiveNow: false,
    });
  });

  it('reads a playable video without captions', () => {
    const p = player('pytube/WXxV9g7lsFE.player.json');
    expect(p.status).toBe('ok');
    expect(p.tracks).toEqual([]);
    expect(p.details?.author).toBe('iyazlive');
  });

  it('maps UNPLAYABLE to 404 for transcripts, metadata still served', () => {
    const p = player('pytube/5YceQ8YqYMc.player.json');
    expect(p.status).toBe('unplayable');
    expect(p.details?.isLiveContent).toBe(true);
    expect(playabilityError(p, 'transcript', '5YceQ8YqYMc')?.code).toBe('not_found');
    expect(playabilityError(p, 'metadata', '5YceQ8YqYMc')).toBeNull();
  });

  it('maps ERROR "Video unavailable" to 404', () => {
    const p = player('pytube/irauhITDrsE.player.json');
    expect(p.status).toBe('unavailable');
    expect(p.details).toBeNull();
    expect(errorStatus[playabilityError(p, 'metadata', 'irauhITDrsE')!.code]).toBe(404);
  });

  it('maps a private video to 404 (it is not there for anyone else)', () => {
    const p = player('pytube/m8uHb5jIGN8.player.json');
    expect(p.status).toBe('private');
    expect(p.reason).toMatch(/private video/);
    expect(playabilityError(p, 'transcript', 'm8uHb5jIGN8')?.code).toBe('not_found');
    expect(playabilityError(p, 'metadata', 'm8uHb5jIGN8')?.code).toBe('not_found');
  });

  it('reads the web answers embedded in watch pages and pbj JSON', () => {
    const web = webPlayer(CAPTURES.watchPage);
    expect(web.status).toBe('ok');
    // The web client's caption URLs are all PO-token gated since mid-2025.
    expect(web.tracks.length).toBe(9);
    expect(web.tracks.every((t) => t.poTokenRequired)).toBe(true);
    expect(web.microformat).toMatchObject({
      uploadDate: '2018-08-02T06:00:08-07:00',
      likeCount: 43864,
      category: 'Science & Technology',
    });

    expect(webPlayer('node-ytdl-core/age-restricted.watch.html').status).toBe('age_restricted');
    expect(webPlayer('node-ytdl-core/private.watch.json').status).toBe('private');
    expect(webPlayer('node-ytdl-core/non-existent.watch.json').status).toBe('unavailable');
    const live = webPlayer('node-ytdl-core/live-now.watch.html');
    expect(live.details?.isLive).toBe(true);
    expect(live.microformat?.isLiveNow).toBe(true);
    const upcoming = webPlayer('node-ytdl-core/live-future.watch.json');
    expect(upcoming.status).toBe('live_offline');
    expect(playabilityError(upcoming, 'transcript', 'VIBFo3Ti5vQ')?.code).toBe('transcript_unavailable');
    expect(playabilityError(upcoming, 'metadata', 'VIBFo3Ti5vQ')).toBeNull();
    expect(webPlayer('node-ytdl-core/longest-upload.watch.html').details?.lengthSeconds).toBe(654333);
  });

  it('never throws on garbage', () => {
    for (const junk of [
      null,
      undefined,
      42,
      'x',
      [],
      {},
      { playabilityStatus: 'OK' },
      { captions: { x: 1 } },
    ]) {
      const p = parsePlayer(junk);
      expect(p.tracks).toEqual([]);
      expect(p.details).toBeNull();
      expect(p.status).toBe('unavailable');
    }
  });
});

describe('playabilityError for restrictions', () => {
  const base = parsePlayer(youtubeJson(CAPTURES.playerAge));
  const withStatus = (status: string, reason: string) =>
    parsePlayer({
      playabilityStatus: { status, reason },
      videoDetails: { videoId: 'abcdefghijk', title: 't' },
    });

  it('members-only, paid and region-locked media are 403 for transcripts', () => {
    const members = withStatus(
      'UNPLAYABLE',
      'Join this channel to get access to members-only content like this video, and other exclusive perks.',
    );
    expect(members.status).toBe('members_only');
    expect(playabilityError(members, 'transcript', 'abcdefghijk')?.code).toBe('forbidden');
    expect(playabilityError(members, 'metadata', 'abcdefghijk')).toBeNull();
    const paid = withStatus('UNPLAYABLE', 'This video requires payment to watch.');
    expect(paid.status).toBe('restricted');
    expect(errorStatus[playabilityError(paid, 'transcript', 'abcdefghijk')!.code]).toBe(403);
    const region = withStatus('UNPLAYABLE', 'The uploader has not made this video available in your country');
    expect(errorStatus[playabilityError(region, 'transcript', 'abcdefghijk')!.code]).toBe(403);
    expect(base.status).toBe('age_restricted');
  });
});
