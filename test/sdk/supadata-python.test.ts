// The hosted service's Python SDK (supadata 1.6.0, unchanged, from ../shared/vendor/supadata-py)
// against a real Unfurl with only `base_url` set: every public method, on the platform replays and
// the loopback website. The SDK builds its answers with `Class(**body)`, so a field it does not
// declare fails it: answers to its User-Agent take the hosted API's published shapes.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFacebookReplay } from '../sources/facebook/replay.js';
import { startInstagramReplay } from '../sources/instagram/replay.js';
import { CAPTURED_ID, startTikTokReplay } from '../sources/tiktok/replay.js';
import { BEARER, startXReplay } from '../sources/x/replay.js';
import type { Loopback } from '../support/loopback.js';
import { CAPTURED_QUERY, CONSTRUCTED_CHANNEL } from '../support/youtube-replay.js';
import { type ClientTestServer, startClientTestServer } from './server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const SCRIPT = path.join(here, 'supadata_python_check.py');
const VENDOR = path.resolve(here, '../../../shared/vendor/supadata-py');

/** Why the SDK cannot run here, or null: python3 with `requests`, and the vendored package. */
function missing(): string | null {
  if (!existsSync(path.join(VENDOR, 'supadata', 'client.py'))) return `no vendored SDK at ${VENDOR}`;
  try {
    execFileSync('python3', ['-c', 'import requests'], { stdio: 'ignore' });
  } catch {
    return 'python3 with requests (Debian python3-requests) is not installed';
  }
  return null;
}

const reason = missing();
// CI must run it: a missing python3 or requests there is a failure, not a skip.
if (reason && process.env.CI === 'true') throw new Error(`supadata-python test cannot run: ${reason}`);

const VIDEO = 'GJLlxj_dtq8';
const PLAYLIST = 'PLzMcBGfZo4-mP7qA9cagf68V06sko5otr';
// More than one poll answer holds (100 pages): the SDK pages through `next`.
const CRAWL_LIMIT = 110;

// biome-ignore lint/suspicious/noExplicitAny: the SDK's objects as JSON, asserted field by field
type Json = any;
type Outcome = { ok?: Json; supadataError?: Json; error?: string };
let results: Record<string, Outcome> = {};
let s: ClientTestServer;
let apiKey: string;
let platformReplays: Loopback[] = [];

describe.skipIf(reason !== null)(
  `supadata (Python SDK 1.6.0) against Unfurl${reason ? ` — skipped: ${reason}` : ''}`,
  () => {
    beforeAll(async () => {
      platformReplays = await Promise.all([
        startTikTokReplay(),
        startInstagramReplay(),
        startXReplay(),
        startFacebookReplay(),
      ]);
      const [tiktok, instagram, x, facebook] = platformReplays;
      s = await startClientTestServer({
        // A dead provider address: extract is accepted as a job (and fails later).
        UNFURL_AI_BASE_URL: 'http://127.0.0.1:9/v1',
        UNFURL_UPSTREAM_TIKTOK: tiktok!.url,
        UNFURL_UPSTREAM_INSTAGRAM: instagram!.url,
        UNFURL_UPSTREAM_X: x!.url,
        UNFURL_UPSTREAM_FACEBOOK: facebook!.url,
        UNFURL_X_BEARER_TOKEN: BEARER,
      });
      const { apiKey: key, accountId } = await s.t.register();
      apiKey = key;
      // The crawl's 110 pages cost more than the free credits.
      await s.t.services.ledger.grant(accountId, 500, 'test: crawl');
      const plan = {
        base: `${s.url}/v1`,
        key: apiKey,
        video: VIDEO,
        playlist: PLAYLIST,
        channel: CONSTRUCTED_CHANNEL,
        query: CAPTURED_QUERY,
        site: s.site.url,
        crawlLimit: CRAWL_LIMIT,
        tiktok: `https://www.tiktok.com/@illojuan/video/${CAPTURED_ID}`,
        instagram: 'https://www.instagram.com/p/COn3M4TnRi1/',
        twitter: 'https://twitter.com/SpaceX/status/1848831595014459513',
      };
      const stdout = await new Promise<string>((resolve, reject) =>
        execFile('python3', [SCRIPT, JSON.stringify(plan)], { timeout: 120_000 }, (err, out, errOut) =>
          err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out),
        ),
      );
      results = JSON.parse(stdout);
    }, 150_000);
    afterAll(async () => {
      await s?.close();
      await Promise.all(platformReplays.map((r) => r.close()));
    });

    /** The method's value; its traceback in the failure message otherwise. */
    const ok = (name: string) => {
      const r = results[name];
      expect(r?.error ?? r?.supadataError ?? null, name).toBeNull();
      return r!.ok;
    };

    it('transcript: chunks, and text', () => {
      const chunks = ok('transcript');
      expect(chunks.content.length).toBeGreaterThan(0);
      expect(typeof chunks.content[0].text).toBe('string');
      expect(typeof chunks.content[0].offset).toBe('number');
      expect(typeof chunks.lang).toBe('string');
      expect(typeof ok('transcript_text').content).toBe('string');
    });

    it('metadata of a video and of posts on other platforms', () => {
      const meta = ok('metadata_video');
      expect(meta).toMatchObject({ platform: 'youtube', type: 'video', id: VIDEO });
      expect(typeof meta.author.display_name).toBe('string');
      expect(meta.media.type).toBe('video');
      expect(ok('metadata_tiktok')).toMatchObject({ platform: 'tiktok', id: CAPTURED_ID });
      const carousel = ok('metadata_instagram');
      expect(carousel).toMatchObject({ platform: 'instagram', type: 'carousel' });
      expect(carousel.media.carousel.length).toBeGreaterThan(0);
      expect(ok('metadata_twitter').platform).toBe('twitter');
    });

    it('youtube: video, channel, channel videos, playlist, playlist videos', () => {
      const video = ok('youtube.video');
      expect(video.id).toBe(VIDEO);
      expect(typeof video.title).toBe('string');
      expect(video.channel.id).toMatch(/^UC/);
      expect(ok('youtube.channel').id).toBe(CONSTRUCTED_CHANNEL);
      expect(ok('youtube.channel.videos').video_ids.length).toBeGreaterThan(0);
      const playlist = ok('youtube.playlist');
      expect(playlist.id).toBe(PLAYLIST);
      expect(typeof playlist.title).toBe('string');
      expect(playlist.video_count).toBeGreaterThan(0);
      const ids = ok('youtube.playlist.videos');
      expect(ids.video_ids.length + ids.short_ids.length).toBeGreaterThan(0);
      expect(ids.video_ids.length + ids.short_ids.length + ids.live_ids.length).toBeLessThanOrEqual(5);
    });

    it('youtube transcripts: deprecated transcript, translate (both ways), search', () => {
      expect(typeof ok('youtube.transcript').content).toBe('string');
      for (const name of ['youtube.transcript.translate', 'youtube.translate']) {
        const t = ok(name);
        expect(t.lang, name).toBe('nl');
        expect(t.content.length, name).toBeGreaterThan(0);
      }
      const found = ok('youtube.search');
      expect(found.query).toBe(CAPTURED_QUERY);
      expect(found.results.length).toBeGreaterThan(0);
    });

    it('batches, read with get_batch_results: items, stats, kebab-case errorCode', () => {
      const videos = ok('youtube.video.batch');
      expect(videos.status).toBe('completed');
      expect(videos.results.map((r: { video_id: string }) => r.video_id)).toEqual([VIDEO, 'nosuchvid01']);
      expect(videos.results[0].video.id).toBe(VIDEO);
      expect(videos.results[1].error_code).toBe('not-found');
      expect(videos.stats).toEqual({ total: 2, succeeded: 1, failed: 1 });
      const transcripts = ok('youtube.transcript.batch');
      expect(transcripts.status).toBe('completed');
      expect(typeof transcripts.results[0].transcript.content).toBe('string');
    });

    it('web: scrape, map, and a crawl read to its end through `next`', () => {
      const page = ok('web.scrape');
      expect(page.content).toContain('Text of page number 1');
      expect(page.count_characters).toBeGreaterThan(0);
      expect(ok('web.map').urls).toContain(`${s.site.url}/docs/p/0`);
      const pages = ok('web.crawl');
      expect(pages).toHaveLength(CRAWL_LIMIT);
      expect(pages.map((p: { url: string }) => p.url)).toContain(`${s.site.url}/docs`);
    });

    it('extract and extract.get_results', () => {
      expect(ok('extract').job_id).toMatch(/^job_/);
      expect(['queued', 'active', 'completed', 'failed']).toContain(ok('extract.get_results').status);
    });

    it('other callers keep our answers; a bad `next` is a 400 naming it; playlist `type` is accepted', async () => {
      const get = (url: string, ua: string) =>
        fetch(`${s.url}${url}`, { headers: { 'x-api-key': apiKey, 'user-agent': ua } });
      const scrape = `/v1/web/scrape?url=${encodeURIComponent(`${s.site.url}/docs/p/2`)}`;
      const ours: Json = await (await get(scrape, 'curl/8.0')).json();
      const theirs: Json = await (await get(scrape, 'Supadata-Python-SDK/1.6.0')).json();
      expect(Object.keys(ours).length).toBeGreaterThan(Object.keys(theirs).length);
      expect(Object.keys(theirs).every((k) => k in ours)).toBe(true);
      const crawl = {
        method: 'POST' as const,
        url: '/v1/web/crawl',
        payload: { url: `${s.site.url}/docs`, limit: 1 },
      };
      const crawlId: string = (await s.t.call(apiKey, crawl)).json().jobId;
      for (const bad of ['abc', '-1', 'http://x/y']) {
        const res = await get(
          `/v1/web/crawl/${crawlId}?next=${encodeURIComponent(bad)}`,
          'Supadata-Python-SDK/1.6.0',
        );
        expect(res.status, bad).toBe(400);
        expect(((await res.json()) as Json).details).toBe('next');
      }
      const res = await get(`/v1/youtube/playlist/videos?id=${PLAYLIST}&type=video&limit=1`, 'curl/8.0');
      expect(res.status).toBe(200);
    });

    it('an error is a SupadataError in the hosted casing', () => {
      expect(results.error?.supadataError).toMatchObject({ error: 'not-found' });
      expect(typeof results.error?.supadataError.message).toBe('string');
    });
  },
);
