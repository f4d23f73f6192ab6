// Media downloads over real sockets: a loopback file server stands in for platform CDNs and plain
// media hosts. Streaming to disk, the size cap (declared or not), redirects re-checked, the upstream
// override, the SSRF guard, timeouts, and that nothing is left behind when a download fails.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { errorStatus } from '../../src/http/error-status.js';
import { MediaDownloader } from '../../src/media/download.js';
import { ProxyPool } from '../../src/net/proxies.js';
import { SafeFetcher } from '../../src/net/safe-fetch.js';
import { Upstreams } from '../../src/net/upstream.js';
import { type Loopback, startConnectProxy, startServer } from '../support/loopback.js';

const FILE = crypto.randomBytes(3 * 1024 * 1024 + 17); // a "media file" of 3 MiB and change
let server: Loopback;
let dir: string;
const seen: Array<{ path: string; headers: Record<string, unknown> }> = [];

beforeAll(async () => {
  server = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push({ path: url.pathname, headers: req.headers });
    if (url.pathname === '/clip.mp4') {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': FILE.length });
      return res.end(FILE);
    }
    if (url.pathname === '/chunked.mp3') {
      // No content length: the cap must hold while streaming.
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      let sent = 0;
      const push = () => {
        while (sent < FILE.length) {
          const piece = FILE.subarray(sent, sent + 64 * 1024);
          sent += piece.length;
          if (!res.write(piece)) return res.once('drain', push);
        }
        res.end();
      };
      return push();
    }
    if (url.pathname === '/cross') {
      // To another origin (the same server under another name): cookies must not follow.
      res.writeHead(302, { location: `http://localhost:${server.port}/clip.mp4` });
      return res.end();
    }
    if (url.pathname === '/hop') {
      res.writeHead(302, { location: '/clip.mp4' });
      return res.end();
    }
    if (url.pathname === '/page.mp4') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<html>not a video</html>');
    }
    if (url.pathname.startsWith('/list/')) {
      // Playlists where media was expected: by declared type, or by their first bytes under a media type.
      const lists: Record<string, [string, string]> = {
        'hls-typed.mp4': ['application/vnd.apple.mpegurl', '#EXTM3U\n#EXTINF:1,\nfile:///etc/passwd\n'],
        'hls-x.mp4': ['application/x-mpegurl', '#EXTM3U\n'],
        'audio-mpegurl.mp3': ['audio/mpegurl', '#EXTM3U\n'],
        'dash.mp4': ['application/dash+xml', '<MPD></MPD>'],
        'hls.mp4': [
          'video/mp4',
          '\uFEFF\n#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:1,\nfile:///etc/passwd\n',
        ],
        'concat.mp3': ['audio/mpeg', 'ffconcat version 1.0\nfile secret.mp4\n'],
        'dash-body.mp4': [
          'video/mp4',
          '<?xml version="1.0" encoding="UTF-8"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011">',
        ],
        'clip.m3u8': ['application/octet-stream', `#EXTM3U\n${'#EXT-X-DISCONTINUITY\n'.repeat(200)}`],
      };
      const [type, body] = lists[url.pathname.slice('/list/'.length)] ?? ['text/plain', ''];
      res.writeHead(200, { 'content-type': type });
      return res.end(body);
    }
    if (url.pathname === '/named.m3u8') {
      // Real media bytes under a playlist's name: the scratch file must not take that name.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return res.end(FILE.subarray(0, 4000));
    }
    if (url.pathname === '/slow.mp4') {
      res.writeHead(200, { 'content-type': 'video/mp4' });
      res.write(FILE.subarray(0, 1000));
      return; // never ends
    }
    if (url.pathname === '/cdn/video.mp4') {
      if (req.headers.referer !== 'https://platform.example/watch') {
        res.writeHead(403);
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'video/mp4' });
      return res.end(FILE.subarray(0, 5000));
    }
    res.writeHead(404);
    res.end();
  });
});

afterAll(async () => {
  await server?.close();
});

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-dl-'));
  seen.length = 0;
});

function downloader(opts: { allowPrivate?: boolean; maxBytes?: number; timeoutMs?: number } = {}) {
  const fetcher = new SafeFetcher({ allowPrivateNetwork: opts.allowPrivate ?? true });
  const upstreams = new Upstreams({ tiktok: server.url }, fetcher, 1);
  return new MediaDownloader({
    fetcher,
    upstreams,
    maxBytes: opts.maxBytes ?? 512 * 1024 * 1024,
    timeoutMs: opts.timeoutMs ?? 10_000,
  });
}

const web = (p: string) => ({
  upstream: 'web',
  url: `${server.url}${p}`,
  durationSec: null,
  kind: 'video' as const,
});

describe('MediaDownloader', () => {
  it('streams a direct file to disk whole, named by its type', async () => {
    const got = await downloader().download(web('/clip.mp4'), dir);
    expect(got.bytes).toBe(FILE.length);
    expect(got.contentType).toBe('video/mp4');
    expect(path.dirname(got.path)).toBe(dir);
    expect(got.path).toMatch(/\.mp4$/);
    expect(fs.readFileSync(got.path).equals(FILE)).toBe(true);
  });

  it('follows redirects and caps a body without a declared length while streaming', async () => {
    const got = await downloader().download(web('/hop'), dir);
    expect(got.bytes).toBe(FILE.length);
    expect(seen.map((s) => s.path)).toEqual(['/hop', '/clip.mp4']);
    const err = await downloader({ maxBytes: 1024 * 1024 })
      .download({ ...web('/chunked.mp3'), kind: 'audio' }, dir)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(errorStatus[(err as AppError).code]).toBe(413);
    expect((err as AppError).code).toBe('payload_too_large');
    // Only the first, whole download is there: the partial file is gone.
    expect(fs.readdirSync(dir)).toEqual([path.basename(got.path)]);
  });

  it('keeps the cookies a location carries on its origin, not across a redirect to another', async () => {
    await downloader().download({ ...web('/hop'), headers: { cookie: 'tt=1', referer: 'r' } }, dir);
    expect(seen.map((s) => [s.path, s.headers.cookie])).toEqual([
      ['/hop', 'tt=1'],
      ['/clip.mp4', 'tt=1'],
    ]);
    seen.length = 0;
    await downloader().download({ ...web('/cross'), headers: { cookie: 'tt=1', referer: 'r' } }, dir);
    expect(seen.map((s) => [s.path, s.headers.cookie, s.headers.referer])).toEqual([
      ['/cross', 'tt=1', 'r'],
      ['/clip.mp4', undefined, 'r'],
    ]);
  });

  it('refuses a declared length over the cap before writing anything', async () => {
    const err = await downloader({ maxBytes: 1024 * 1024 })
      .download(web('/clip.mp4'), dir)
      .catch((e: unknown) => e);
    expect((err as AppError).code).toBe('payload_too_large');
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('sends a platform location to its upstream override with the headers its CDN wants', async () => {
    const location = {
      upstream: 'tiktok',
      url: 'https://v16-webapp.tiktok.example/cdn/video.mp4',
      headers: { referer: 'https://platform.example/watch' },
      durationSec: 12,
      kind: 'video' as const,
    };
    const got = await downloader().download(location, dir);
    expect(got.bytes).toBe(5000);
    expect(seen[0]?.path).toBe('/cdn/video.mp4');
    const refused = await downloader()
      .download({ ...location, headers: {} }, dir)
      .catch((e: unknown) => e);
    expect((refused as AppError).code).toBe('forbidden');
  });

  it('maps a missing file to 404, a page to 400 naming url, and leaves nothing behind', async () => {
    const missing = await downloader()
      .download(web('/nothing.mp4'), dir)
      .catch((e: unknown) => e);
    expect((missing as AppError).code).toBe('not_found');
    const page = await downloader()
      .download(web('/page.mp4'), dir)
      .catch((e: unknown) => e);
    expect((page as AppError).code).toBe('invalid_request');
    expect((page as AppError).details).toBe('url');
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('refuses a playlist, by its type or its first bytes, as a 400 naming url that says so', async () => {
    for (const name of [
      'hls-typed.mp4',
      'hls-x.mp4',
      'audio-mpegurl.mp3',
      'dash.mp4',
      'hls.mp4',
      'concat.mp3',
      'dash-body.mp4',
      'clip.m3u8',
    ]) {
      const err = await downloader()
        .download(web(`/list/${name}`), dir)
        .catch((e: unknown) => e);
      expect(err, name).toBeInstanceOf(AppError);
      expect((err as AppError).code, name).toBe('invalid_request');
      expect((err as AppError).details, name).toBe('url');
      expect((err as AppError).message, name).toMatch(/playlist/);
    }
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('names the scratch file by the declared media type only, never by the URL', async () => {
    const got = await downloader().download(web('/named.m3u8'), dir);
    expect(got.bytes).toBe(4000);
    expect(path.basename(got.path)).toMatch(/^media-[0-9a-f]{12}\.bin$/);
  });

  it('gives up after the timeout and removes the partial file', async () => {
    const started = Date.now();
    const err = await downloader({ timeoutMs: 1000 })
      .download(web('/slow.mp4'), dir)
      .catch((e: unknown) => e);
    expect((err as AppError).code).toBe('upstream_error');
    expect((err as AppError).message).toMatch(/longer than 1000 ms/);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('stops at once when the job is cancelled', async () => {
    const controller = new AbortController();
    const pending = downloader().download(web('/slow.mp4'), dir, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('job cancelled')), 200);
    await expect(pending).rejects.toThrow(/job cancelled/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('fetches platform media through the configured proxies, plain media URLs directly', async () => {
    const proxy = await startConnectProxy();
    const pool = new ProxyPool([proxy.url]);
    try {
      const fetcher = new SafeFetcher({ allowPrivateNetwork: true, proxies: pool });
      const viaProxy = new MediaDownloader({
        fetcher,
        upstreams: new Upstreams({ tiktok: server.url }, fetcher, 1),
        maxBytes: 10 * 1024 * 1024,
        timeoutMs: 10_000,
      });
      const platform = {
        upstream: 'tiktok',
        url: 'https://v16-webapp.tiktok.example/cdn/video.mp4',
        headers: { referer: 'https://platform.example/watch' },
        durationSec: null,
        kind: 'video' as const,
      };
      expect((await viaProxy.download(platform, dir)).bytes).toBe(5000);
      expect(proxy.connects).toEqual([`127.0.0.1:${server.port}`]);
      expect((await viaProxy.download(web('/clip.mp4'), dir)).bytes).toBe(FILE.length);
      expect(proxy.connects).toHaveLength(1); // the plain URL went direct
    } finally {
      await pool.close();
      await proxy.close();
    }
  });

  it('avoids an exit the CDN throttled (429 + Retry-After) until its bench ends', async () => {
    let throttled = 0;
    const cdn429 = await startServer((req, res) => {
      req.resume();
      throttled++;
      res.writeHead(429, { 'retry-after': '30' }).end();
    });
    const walledExit = await startConnectProxy(() => `127.0.0.1:${cdn429.port}`);
    const goodExit = await startConnectProxy();
    const pool = new ProxyPool([walledExit.url, goodExit.url]);
    try {
      const fetcher = new SafeFetcher({ allowPrivateNetwork: true, proxies: pool });
      const viaProxies = new MediaDownloader({
        fetcher,
        upstreams: new Upstreams({ tiktok: server.url }, fetcher, 1),
        maxBytes: 10 * 1024 * 1024,
        timeoutMs: 10_000,
      });
      const platform = {
        upstream: 'tiktok',
        url: 'https://v16-webapp.tiktok.example/cdn/video.mp4',
        headers: { referer: 'https://platform.example/watch' },
        durationSec: null,
        kind: 'video' as const,
      };
      const outcomes: string[] = [];
      for (let i = 0; i < 4; i++) {
        outcomes.push(
          await viaProxies.download(platform, dir).then(
            (m) => String(m.bytes),
            (err: AppError) => err.code,
          ),
        );
      }
      // The first try met the throttle (the job's next attempt retries); the exit then sat out.
      expect(outcomes).toEqual(['upstream_error', '5000', '5000', '5000']);
      expect(throttled).toBe(1);
    } finally {
      await pool.close();
      await walledExit.close();
      await goodExit.close();
      await cdn429.close();
    }
  });

  it('refuses loopback and private addresses unless the network policy allows them', async () => {
    const err = await downloader({ allowPrivate: false })
      .download(web('/clip.mp4'), dir)
      .catch((e: unknown) => e);
    expect((err as AppError).code).toBe('invalid_request');
    expect(seen).toEqual([]);
  });
});
