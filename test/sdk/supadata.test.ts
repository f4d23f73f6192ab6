// The hosted service's own SDK (@supadata/js 1.4.0), unchanged, against a real Unfurl on a loopback
// socket with only `baseUrl` set: every method it has, on the video-platform replay and a loopback
// website. This is the drop-in promise: a user changes the base URL and nothing else.
import { Supadata, SupadataError } from '@supadata/js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFacebookReplay, WATCH_ID } from '../sources/facebook/replay.js';
import { startInstagramReplay } from '../sources/instagram/replay.js';
import { CAPTURED_ID, startTikTokReplay } from '../sources/tiktok/replay.js';
import { BEARER, startXReplay } from '../sources/x/replay.js';
import type { Loopback } from '../support/loopback.js';
import { CAPTURED_QUERY, CONSTRUCTED_CHANNEL } from '../support/youtube-replay.js';
import { type ClientTestServer, startClientTestServer } from './server.js';

let s: ClientTestServer;
let platformReplays: Loopback[] = [];
let supadata: Supadata;
let apiKey: string;

const VIDEO = 'GJLlxj_dtq8';
const PLAYLIST = 'PLzMcBGfZo4-mP7qA9cagf68V06sko5otr';

beforeAll(async () => {
  // A dead provider address: AI jobs are accepted (and fail later), as on a server with one configured.
  platformReplays = await Promise.all([
    startTikTokReplay(),
    startInstagramReplay(),
    startXReplay(),
    startFacebookReplay(),
  ]);
  const [tiktok, instagram, x, facebook] = platformReplays;
  s = await startClientTestServer({
    UNFURL_AI_BASE_URL: 'http://127.0.0.1:9/v1',
    UNFURL_UPSTREAM_TIKTOK: tiktok!.url,
    UNFURL_UPSTREAM_INSTAGRAM: instagram!.url,
    UNFURL_UPSTREAM_X: x!.url,
    UNFURL_UPSTREAM_FACEBOOK: facebook!.url,
    UNFURL_X_BEARER_TOKEN: BEARER,
  });
  ({ apiKey } = await s.t.register());
  supadata = new Supadata({ apiKey, baseUrl: `${s.url}/v1` });
});
afterAll(async () => {
  await s?.close();
  await Promise.all(platformReplays.map((r) => r.close()));
});

async function credits(): Promise<number> {
  return (await s.t.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits;
}

describe('@supadata/js against Unfurl, baseUrl only', () => {
  it('transcript (root): native captions as chunks or text', async () => {
    const chunks = await supadata.transcript({
      url: `https://www.youtube.com/watch?v=${VIDEO}`,
      mode: 'native',
    });
    expect('content' in chunks && Array.isArray(chunks.content)).toBe(true);
    const text = await supadata.transcript({ url: `https://youtu.be/${VIDEO}`, text: true, mode: 'native' });
    expect('content' in text && typeof text.content === 'string').toBe(true);
  });

  it('transcript in auto mode: the captions, at once', async () => {
    const auto = await supadata.transcript({ url: `https://www.youtube.com/watch?v=${VIDEO}`, mode: 'auto' });
    expect('content' in auto && Array.isArray(auto.content) && auto.content.length > 0).toBe(true);
  });

  it('transcript.getJobStatus reads a speech job through `result`', async () => {
    // generate mode with a provider configured → a job (its recognition fails later at the dead address).
    const job = await supadata.transcript({
      url: `https://www.youtube.com/watch?v=${VIDEO}`,
      mode: 'generate',
    });
    expect('jobId' in job).toBe(true);
    if (!('jobId' in job)) return;
    const status = await supadata.transcript.getJobStatus(job.jobId);
    expect(['queued', 'active', 'completed', 'failed']).toContain(status.status);
    expect('result' in status).toBe(true);
  });

  it('youtube: transcript, video, channel, channel videos, playlist, playlist videos', async () => {
    const t = await supadata.youtube.transcript({ videoId: VIDEO, text: true });
    expect(typeof t.content).toBe('string');
    const video = await supadata.youtube.video({ id: VIDEO });
    expect(video.id).toBe(VIDEO);
    const channel = await supadata.youtube.channel({ id: CONSTRUCTED_CHANNEL });
    expect(channel.id).toBe(CONSTRUCTED_CHANNEL);
    const channelVideos = await supadata.youtube.channel.videos({ id: CONSTRUCTED_CHANNEL, limit: 5 });
    expect(channelVideos.videoIds.length).toBeGreaterThan(0);
    const playlist = await supadata.youtube.playlist({ id: PLAYLIST });
    expect(playlist).toMatchObject({ id: PLAYLIST });
    expect(typeof playlist.title).toBe('string');
    const playlistVideos = await supadata.youtube.playlist.videos({ id: PLAYLIST, limit: 5 });
    expect(playlistVideos.videoIds.length).toBeGreaterThan(0);
  });

  it('youtube batches: video and transcript batches, read with getBatchResults (errorCode per item)', async () => {
    const { jobId } = await supadata.youtube.video.batch({ videoIds: [VIDEO, 'nosuchvid01'], limit: 2 });
    let batch = await supadata.youtube.batch.getBatchResults(jobId);
    const deadline = Date.now() + 30_000;
    while (batch.status !== 'completed' && batch.status !== 'failed' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      batch = await supadata.youtube.batch.getBatchResults(jobId);
    }
    expect(batch.status).toBe('completed');
    expect(batch.results?.map((r) => r.videoId)).toEqual([VIDEO, 'nosuchvid01']);
    expect(batch.results?.[0]?.video?.id).toBe(VIDEO);
    expect(batch.results?.[1]?.errorCode).toBe('not_found');
    const transcripts = await supadata.youtube.transcript.batch({ videoIds: [VIDEO], text: true });
    expect(transcripts.jobId).toMatch(/^job_/);
  });

  it("youtube.translate: the platform's own translation", async () => {
    const translated = await supadata.youtube.translate({ videoId: VIDEO, lang: 'nl' });
    expect(translated.lang).toBe('nl');
    expect(Array.isArray(translated.content)).toBe(true);
  });

  it('youtube.search: results in the hosted shape, charged per page', async () => {
    const before = await credits();
    const found = await supadata.youtube.search({ query: CAPTURED_QUERY });
    expect(found.query).toBe(CAPTURED_QUERY);
    expect(found.results.length).toBeGreaterThan(0);
    expect(['video', 'channel', 'playlist']).toContain(found.results[0]!.type);
    expect(await credits()).toBe(before - 1);
  });

  it('metadata of a video, in the one shape', async () => {
    const meta = await supadata.metadata({ url: `https://www.youtube.com/watch?v=${VIDEO}` });
    expect(meta).toMatchObject({ platform: 'youtube', type: 'video', id: VIDEO });
    expect(meta.author).toBeDefined();
    expect(meta.stats).toBeDefined();
  });

  it('metadata of a post on each of the other platforms, in the same shape', async () => {
    const posts = [
      { url: `https://www.tiktok.com/@illojuan/video/${CAPTURED_ID}`, platform: 'tiktok', id: CAPTURED_ID },
      { url: 'https://www.instagram.com/p/COn3M4TnRi1/', platform: 'instagram', type: 'carousel' },
      { url: 'https://twitter.com/SpaceX/status/1848831595014459513', platform: 'twitter' },
      { url: `https://www.facebook.com/watch/?v=${WATCH_ID}`, platform: 'facebook', id: WATCH_ID },
    ];
    for (const { url, ...expected } of posts) {
      const before = await credits();
      const meta = await supadata.metadata({ url });
      expect(meta, url).toMatchObject(expected);
      expect(Object.keys(meta.author).sort(), url).toEqual([
        'avatarUrl',
        'displayName',
        'username',
        'verified',
      ]);
      expect(Object.keys(meta.stats).sort(), url).toEqual(['comments', 'likes', 'shares', 'views']);
      expect(await credits(), url).toBe(before - 1);
    }
  });

  it('web: scrape, map, crawl and getCrawlResults', async () => {
    const page = await supadata.web.scrape(`${s.site.url}/docs/p/1`);
    expect(page.content).toContain('Text of page number 1');
    const map = await supadata.web.map(`${s.site.url}/docs`);
    expect(map.urls).toContain(`${s.site.url}/docs/p/0`);
    const { jobId } = await supadata.web.crawl({ url: `${s.site.url}/docs`, limit: 5 });
    let crawl = await supadata.web.getCrawlResults(jobId);
    const deadline = Date.now() + 30_000;
    while (crawl.status === 'scraping' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      crawl = await supadata.web.getCrawlResults(jobId);
    }
    expect(crawl.status).toBe('completed');
    expect(crawl.pages?.length).toBe(5);
  });

  it('extract: accepted as a job, read with getResults', async () => {
    const job = await supadata.extract({
      url: `https://www.youtube.com/watch?v=${VIDEO}`,
      prompt: 'The topics',
    });
    expect(job.jobId).toMatch(/^job_/);
    const result = await supadata.extract.getResults(job.jobId);
    expect(['queued', 'active', 'completed', 'failed']).toContain(result.status);
  });

  it('errors arrive as SupadataError with our snake_case code', async () => {
    const err = await supadata.youtube.video({ id: 'nosuchvid01' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SupadataError);
    expect((err as SupadataError).error).toBe('not_found');
    const wrongKey = new Supadata({ apiKey: 'uf_nope', baseUrl: `${s.url}/v1` });
    const denied = await wrongKey.web.scrape(`${s.site.url}/docs`).catch((e: unknown) => e);
    expect((denied as SupadataError).error).toBe('unauthorized');
  });
});
