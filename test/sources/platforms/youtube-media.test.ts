// The video-sharing platform's registry entry: streams of the captured player answers (plain URLs
// from the mobile clients; ciphered ones skipped), media location through the replay server, and
// the 403/404 of videos that cannot be had.
import { describe, expect, it } from 'vitest';
import { CLIENTS } from '../../../src/sources/youtube/innertube.js';
import { parseStreams, pickStream } from '../../../src/sources/youtube/streams.js';
import type { TestApp } from '../../support/app.js';
import { useReplayApp } from '../../support/replay-app.js';
import { CAPTURES, startYouTubeReplay, youtubeJson } from '../../support/youtube-replay.js';

describe('parseStreams / pickStream (captured player answer)', () => {
  const streams = parseStreams(youtubeJson(CAPTURES.playerOk));

  it('reads every plainly handed-out format with its kind, rate and length', () => {
    expect(streams.length).toBeGreaterThan(10);
    expect(streams.every((s) => s.url.startsWith('https://'))).toBe(true);
    const muxed = streams.filter((s) => s.hasVideo && s.hasAudio);
    expect(muxed.map((s) => s.mimeType)).toEqual(['video/mp4; codecs="avc1.42001E, mp4a.40.2"']);
    expect(streams.filter((s) => !s.hasVideo).every((s) => s.mimeType.startsWith('audio/'))).toBe(true);
  });

  it('picks the smallest m4a for sound, the muxed file for pictures and sound', () => {
    const audio = pickStream(streams, 'audio')!;
    expect(audio.mimeType).toMatch(/^audio\/mp4/);
    expect(audio.bitrate).toBe(
      Math.min(...streams.filter((s) => s.mimeType.startsWith('audio/mp4')).map((s) => s.bitrate)),
    );
    const video = pickStream(streams, 'video')!;
    expect(video.hasVideo && video.hasAudio).toBe(true);
    expect(video.durationSec).toBeGreaterThan(300);
  });

  it('skips formats behind a signature cipher', () => {
    const raw = structuredClone(youtubeJson(CAPTURES.playerOk)) as {
      streamingData: {
        formats: Array<Record<string, unknown>>;
        adaptiveFormats: Array<Record<string, unknown>>;
      };
    };
    for (const f of [...raw.streamingData.formats, ...raw.streamingData.adaptiveFormats]) {
      f.signatureCipher = `s=abc&sp=sig&url=${encodeURIComponent(String(f.url))}`;
      delete f.url;
    }
    expect(parseStreams(raw)).toEqual([]);
    expect(pickStream([], 'video')).toBeNull();
    expect(parseStreams({})).toEqual([]);
  });
});

let t: TestApp;

useReplayApp({ upstream: 'YOUTUBE', start: startYouTubeReplay, register: false }, (stage) => {
  ({ t } = stage);
});

describe('services.platforms.locate on the video-sharing platform', () => {
  it('hands out the muxed stream of the first mobile client, with its user agent', async () => {
    const { ref, location } = await t.services.platforms.locate('https://youtu.be/GJLlxj_dtq8?t=3');
    expect(ref).toEqual({
      platform: 'youtube',
      id: 'GJLlxj_dtq8',
      url: 'https://www.youtube.com/watch?v=GJLlxj_dtq8',
    });
    expect(location.upstream).toBe('youtube');
    expect(new URL(location.url).searchParams.get('itag')).toBe('18');
    expect(location.kind).toBe('video');
    expect(location.durationSec).toBeGreaterThan(300);
    expect(location.headers).toEqual({ 'user-agent': CLIENTS.ANDROID.userAgent });
  });

  it('says 403 for age-restricted videos and 404 for unavailable ones', async () => {
    await expect(
      t.services.platforms.locate('https://www.youtube.com/watch?v=Njp5uhTorCo'),
    ).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(
      t.services.platforms.locate('https://www.youtube.com/watch?v=zzzzzzzzzzz'),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
