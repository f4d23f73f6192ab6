// `Platforms.metadataOf(url)`, the one service function behind a metadata route, end to end: a real
// app whose five platform upstreams point at their loopback replays (and a loopback file server),
// each platform's post or video in the shared shape, not_found for posts that do not exist, a file
// whose server refuses HEAD, and 400 naming `url` for what no platform takes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppError } from '../../src/errors.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { type Loopback, startServer } from '../support/loopback.js';
import { startYouTubeReplay } from '../support/youtube-replay.js';
import { startFacebookReplay, WATCH_ID } from './facebook/replay.js';
import { startInstagramReplay } from './instagram/replay.js';
import { CAPTURED_ID, GONE_ID, startTikTokReplay } from './tiktok/replay.js';
import { BEARER, startXReplay } from './x/replay.js';

const servers: Loopback[] = [];
let files: Loopback;
let t: TestApp;

beforeAll(async () => {
  const [youtube, tiktok, instagram, x, facebook] = await Promise.all([
    startYouTubeReplay(),
    startTikTokReplay(),
    startInstagramReplay(),
    startXReplay(),
    startFacebookReplay(),
  ]);
  files = await startServer((req, res) => {
    const modified = { 'last-modified': 'Wed, 21 Oct 2015 07:28:00 GMT' };
    if (req.url === '/films/launch.mp4') {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': '4096', ...modified });
      return res.end(req.method === 'HEAD' ? undefined : Buffer.alloc(4096));
    }
    if (req.url === '/no-head/talk.mp3') {
      if (req.method === 'HEAD') return res.writeHead(405).end();
      const ranged = req.headers.range === 'bytes=0-0';
      res.writeHead(ranged ? 206 : 200, {
        'content-type': 'audio/mpeg',
        ...(ranged && { 'content-range': 'bytes 0-0/777' }),
      });
      return res.end(Buffer.alloc(ranged ? 1 : 777));
    }
    if (req.url === '/login/wall.mp4') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<html><body>Sign in</body></html>');
    }
    res.writeHead(404).end();
  });
  servers.push(youtube, tiktok, instagram, x, facebook, files);
  t = await createTestApp({
    UNFURL_UPSTREAM_YOUTUBE: youtube.url,
    UNFURL_UPSTREAM_TIKTOK: tiktok.url,
    UNFURL_UPSTREAM_INSTAGRAM: instagram.url,
    UNFURL_UPSTREAM_X: x.url,
    UNFURL_UPSTREAM_FACEBOOK: facebook.url,
    UNFURL_X_BEARER_TOKEN: BEARER,
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
  });
});

afterAll(async () => {
  await t?.close();
  await Promise.all(servers.map((s) => s.close()));
});

const metadataOf = (url: string) => t.services.platforms.metadataOf(url);
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: AppError) => ({ code: err.code, details: err.details }),
  );

describe('metadataOf', () => {
  it('answers a video of the video-sharing platform (player and watch page)', async () => {
    const m = await metadataOf('https://youtu.be/GJLlxj_dtq8');
    expect(m).toMatchObject({
      platform: 'youtube',
      type: 'video',
      id: 'GJLlxj_dtq8',
      author: { username: '@Dave2D', verified: true },
      stats: { views: 1856109, likes: 43864, comments: 2700, shares: null },
      media: { type: 'video', duration: 316 },
    });
  });

  it('answers a short-video post (its page, behind the WAF challenge)', async () => {
    const m = await metadataOf(`https://www.tiktok.com/@illojuan/video/${CAPTURED_ID}`);
    expect(m).toMatchObject({
      platform: 'tiktok',
      id: CAPTURED_ID,
      author: { username: 'illojuan', displayName: 'IlloJuan' },
      stats: { views: 192100, likes: 25500, comments: 146, shares: 2156 },
    });
  });

  it('answers a reel and a carousel of the photo-sharing site (its post query)', async () => {
    const reel = await metadataOf('https://www.instagram.com/reel/CN2VQ1yI_MA/');
    expect(reel).toMatchObject({ platform: 'instagram', type: 'video', id: 'CN2VQ1yI_MA' });
    const carousel = await metadataOf('https://www.instagram.com/p/COn3M4TnRi1/');
    expect(carousel).toMatchObject({
      type: 'carousel',
      media: { items: [{ type: 'image' }, { type: 'image' }] },
    });
  });

  it('answers a microblog post (the web GraphQL)', async () => {
    const m = await metadataOf('https://twitter.com/SpaceX/status/1848831595014459513');
    expect(m).toMatchObject({
      platform: 'twitter',
      type: 'carousel',
      url: 'https://x.com/SpaceX/status/1848831595014459513',
      stats: { likes: 26045, comments: 823, shares: 2875 },
    });
  });

  it('answers a video of the social network (its page)', async () => {
    const m = await metadataOf(`https://www.facebook.com/watch/?v=${WATCH_ID}`);
    expect(m).toMatchObject({
      platform: 'facebook',
      type: 'video',
      id: WATCH_ID,
      title: 'Constructed launch',
    });
  });

  it("answers a plain media file from its server's headers, by GET of one byte where HEAD is refused", async () => {
    const film = await metadataOf(`${files.url}/films/launch.mp4`);
    expect(film).toMatchObject({
      platform: 'file',
      type: 'video',
      title: 'launch.mp4',
      createdAt: '2015-10-21T07:28:00.000Z',
      additionalData: { kind: 'video', contentType: 'video/mp4', sizeBytes: 4096 },
    });
    const talk = await metadataOf(`${files.url}/no-head/talk.mp3`);
    expect(talk.additionalData).toEqual({ kind: 'audio', contentType: 'audio/mpeg', sizeBytes: 777 });
  });

  it('is not_found for a post or video that does not exist, on every platform', async () => {
    const missing = [
      'https://www.youtube.com/watch?v=unknownVid1',
      `https://www.tiktok.com/@someone/video/${GONE_ID}`,
      'https://www.instagram.com/p/Cmissing000/',
      'https://x.com/someone/status/1790000000000000404',
      'https://www.facebook.com/watch/?v=99999999999999999',
      `${files.url}/films/gone.mp4`,
      `${files.url}/login/wall.mp4`,
    ];
    for (const url of missing)
      expect(await failure(metadataOf(url)), url).toMatchObject({ code: 'not_found' });
  });

  it('is a 400 naming url for what no platform takes', async () => {
    for (const url of ['https://example.com/article', 'ftp://files.example/a.mp4', 'not a url at all']) {
      expect(await failure(metadataOf(url)), url).toEqual({ code: 'invalid_request', details: 'url' });
    }
  });
});
