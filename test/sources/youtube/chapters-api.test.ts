// Chapters end to end: a real app on a fresh database, UNFURL_UPSTREAM_YOUTUBE pointing at the
// loopback replay of the captures. GJLlxj_dtq8's captured watch page marks ten automatic chapters
// ("Key moments", from 39.16 s); the captured caption track covers only its first 9 s, so the
// transcripts here are a constructed timedtext body (made up, in the platform's format 1) with cues
// before and inside those chapters. The short-video site's replay stands for a platform without chapters.
import { afterAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../support/app.js';
import { useReplayApp } from '../../support/replay-app.js';
import { CAPTURES, startYouTubeReplay, type YouTubeReplay } from '../../support/youtube-replay.js';
import { CAPTURED_ID, startTikTokReplay, type TikTokReplay } from '../tiktok/replay.js';

const VIDEO = 'GJLlxj_dtq8';
const NO_WATCH_PAGE = 'noWatchPage'; // the same player answer, but the replay has no watch page for it

const TRACK = `<?xml version="1.0" encoding="utf-8" ?>
<transcript>
  <text start="0" dur="2">Before the first key moment.</text>
  <text start="20" dur="2">Still the opening.</text>
  <text start="40" dur="3">The build is solid.</text>
  <text start="50" dur="3">Nothing creaks.</text>
  <text start="70" dur="3">The screen is bright.</text>
  <text start="300" dur="5">Two ports, that is all.</text>
</transcript>`;

const env: Record<string, string> = {};
let tiktok: TikTokReplay | undefined;
let replay: YouTubeReplay;
let t: TestApp;
let key: string;

useReplayApp(
  {
    upstream: 'YOUTUBE',
    start: async () => {
      tiktok = await startTikTokReplay();
      env.UNFURL_UPSTREAM_TIKTOK = tiktok.url;
      return startYouTubeReplay({
        players: { [NO_WATCH_PAGE]: { '*': CAPTURES.playerOk } },
        timedtext: () => TRACK,
      });
    },
    env,
    clearRequests: true,
  },
  (stage) => {
    ({ replay, t, key } = stage);
  },
);
afterAll(async () => {
  await tiktok?.close();
});

const get = (url: string) => t.call(key, { method: 'GET', url });
const watchUrl = (id: string) => encodeURIComponent(`https://www.youtube.com/watch?v=${id}`);
const transcript = (query: string) => get(`/v1/transcript?url=${watchUrl(VIDEO)}&${query}`);
const balance = async () => (await get('/v1/account')).json().credits as number;
type Chunk = { text: string; chapter?: string | null };
const chaptersOf = (content: Chunk[]) => content.map((c) => [c.chapter, c.text]);

const FIRST = { title: 'Build Quality', startMs: 39_160, endMs: 66_010 };
const LAST = { title: 'Ports', startMs: 254_709, endMs: 316_000 };

describe('video metadata: chapters', () => {
  it('GET /v1/vidsite/video: the watch page’s Key moments, the last ending at the duration', async () => {
    const res = await get(`/v1/vidsite/video?id=${VIDEO}`);
    expect(res.statusCode).toBe(200);
    const { chapters, duration } = res.json();
    expect(duration).toBe(316);
    expect(chapters).toHaveLength(10);
    expect(chapters[0]).toEqual(FIRST);
    expect(chapters[1]).toEqual({ title: 'Screen', startMs: 66_010, endMs: 106_720 });
    expect(chapters[9]).toEqual(LAST);
    // Alias, any URL form, from the kept metadata.
    const alias = await get(`/v1/youtube/video?id=${encodeURIComponent(`https://youtu.be/${VIDEO}`)}`);
    expect(alias.json().chapters).toEqual(chapters);
  });

  it('GET /v1/metadata carries the same list in additionalData.chapters', async () => {
    const video = (await get(`/v1/vidsite/video?id=${VIDEO}`)).json();
    const meta = await get(`/v1/metadata?url=${watchUrl(VIDEO)}`);
    expect(meta.statusCode).toBe(200);
    expect(meta.json().additionalData.chapters).toEqual(video.chapters);
  });

  it('without the watch page: the description’s chapters only (here none), and nothing kept', async () => {
    const res = await get(`/v1/vidsite/video?id=${NO_WATCH_PAGE}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().chapters).toEqual([]);
    await get(`/v1/vidsite/video?id=${NO_WATCH_PAGE}`);
    expect(replay.count('/watch')).toBe(2); // asked again: a metadata without its page is not kept
  });
});

describe('GET /v1/transcript?chapters=true', () => {
  it('each chunk says the chapter it starts in (null before the first), billed 1 credit', async () => {
    const before = await balance();
    const res = await transcript('chapters=true');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(chaptersOf(res.json().content)).toEqual([
      [null, 'Before the first key moment.'],
      [null, 'Still the opening.'],
      ['Build Quality', 'The build is solid.'],
      ['Build Quality', 'Nothing creaks.'],
      ['Screen', 'The screen is bright.'],
      ['Ports', 'Two ports, that is all.'],
    ]);
    expect(res.json().content[2]).toEqual({
      text: 'The build is solid.',
      offset: 40_000,
      duration: 3_000,
      lang: 'en',
      chapter: 'Build Quality',
    });
    expect(await balance()).toBe(before - 1);
  });

  it('merges within a chapter only with chunkSize', async () => {
    const res = await transcript('chapters=true&chunkSize=1000');
    expect(chaptersOf(res.json().content)).toEqual([
      [null, 'Before the first key moment. Still the opening.'],
      ['Build Quality', 'The build is solid. Nothing creaks.'],
      ['Screen', 'The screen is bright.'],
      ['Ports', 'Two ports, that is all.'],
    ]);
  });

  it('text=true: the chapters’ titles as headings', async () => {
    const res = await transcript('chapters=true&text=true');
    expect(res.json().content).toBe(
      'Before the first key moment. Still the opening.\n\n' +
        'Build Quality\nThe build is solid. Nothing creaks.\n\n' +
        'Screen\nThe screen is bright.\n\n' +
        'Ports\nTwo ports, that is all.',
    );
  });

  it('is answered right whichever was kept first, and from the kept pieces alone', async () => {
    const id = '2lAe1cqCOXo'; // nothing asked of it yet in this file
    const plainFirst = await get(`/v1/transcript?url=${watchUrl(id)}&lang=en`);
    expect(plainFirst.statusCode).toBe(200);
    expect(plainFirst.json().content.some((c: object) => 'chapter' in c)).toBe(false);
    // The plain answer is kept; chapters=true is not served from it.
    const withChapters = await get(`/v1/transcript?url=${watchUrl(id)}&lang=en&chapters=true`);
    // Its Key moments start at 1:00, 2:14 and 3:22.
    expect(chaptersOf(withChapters.json().content).map(([chapter]) => chapter)).toEqual([
      null,
      null,
      null,
      null,
      'MOST LIKED CREATOR VIDEOS of 2019, duh...',
      'BREAK OUT',
    ]);
    // Nor the other way round.
    const plainAgain = await get(`/v1/transcript?url=${watchUrl(id)}&lang=en`);
    expect(plainAgain.json()).toEqual(plainFirst.json());
    // Again: the kept captions and the kept metadata, nothing fetched, still billed.
    replay.requests.length = 0;
    const before = await balance();
    const again = await get(`/v1/vidsite/transcript?videoId=${id}&lang=en&chapters=true`);
    expect(again.json()).toEqual(withChapters.json());
    expect(replay.requests).toHaveLength(0);
    expect(await balance()).toBe(before - 1);
  });

  it('without chapters=true (or with false): no chapter fields', async () => {
    for (const query of ['lang=en', 'lang=en&chapters=false']) {
      const res = await transcript(query);
      expect(
        res.json().content.some((c: object) => 'chapter' in c),
        query,
      ).toBe(false);
    }
  });

  it('a video without chapters: chapter null on every chunk', async () => {
    const res = await get(`/v1/transcript?url=${watchUrl(NO_WATCH_PAGE)}&chapters=true`);
    expect(res.statusCode).toBe(200);
    expect(res.json().content.map((c: Chunk) => c.chapter)).toEqual([null, null, null, null, null, null]);
  });

  it('a platform without chapters: accepted, answered as without it', async () => {
    const url = encodeURIComponent(`https://www.tiktok.com/@illojuan/video/${CAPTURED_ID}`);
    const plain = await get(`/v1/transcript?url=${url}`);
    expect(plain.statusCode).toBe(200);
    const asked = await get(`/v1/transcript?url=${url}&chapters=true`);
    expect(asked.statusCode).toBe(200);
    expect(asked.json()).toEqual(plain.json());
    expect(asked.json().content.some((c: object) => 'chapter' in c)).toBe(false);
  });

  it('chapters=maybe (or any non-boolean) → 400 naming chapters, charging nothing', async () => {
    const before = await balance();
    for (const url of [
      `/v1/transcript?url=${watchUrl(VIDEO)}&chapters=maybe`,
      `/v1/vidsite/transcript?videoId=${VIDEO}&chapters=maybe`,
      `/v1/youtube/transcript?id=${VIDEO}&chapters=yes`,
      `/v1/transcript?url=${watchUrl(VIDEO)}&chapters=`,
    ]) {
      const res = await get(url);
      expect([url, res.statusCode, res.json().error, res.json().details]).toEqual([
        url,
        400,
        'invalid_request',
        'chapters',
      ]);
      // A declared boolean refused, not an unknown parameter.
      expect(res.json().message).toBe("Invalid query parameter 'chapters': must be boolean");
    }
    expect(replay.requests).toHaveLength(0);
    expect(await balance()).toBe(before);
  });
});
