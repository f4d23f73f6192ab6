// Fetches a located media file into a job's scratch directory: streamed to disk (never held in
// memory), through net/ (SSRF guard per hop, proxies for platform CDNs, UNFURL_UPSTREAM_<NAME>
// overrides), capped in bytes and time; a partial file is removed when anything goes wrong. A playlist
// (HLS, DASH, ffconcat) is refused as it starts, and the file is never named after the URL.
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../errors.js';
import type { SafeFetcher } from '../net/safe-fetch.js';
import { allBenched, type Upstreams } from '../net/upstream.js';
import { retryAfterMs } from '../net/waiting.js';
import type { MediaLocation } from '../sources/platform.js';
import { isPlaylistType, playlistRefused, refusePlaylists } from './playlist.js';

export interface DownloadOptions {
  signal?: AbortSignal;
  /** Default UNFURL_MEDIA_MAX_BYTES. */
  maxBytes?: number;
  /** Default UNFURL_MEDIA_TIMEOUT_MS. */
  timeoutMs?: number;
}

export interface DownloadedMedia {
  path: string;
  bytes: number;
  /** The media type the server declared, lower-cased, without parameters. */
  contentType: string | null;
}

export interface MediaDownloaderDeps {
  fetcher: SafeFetcher;
  upstreams: Upstreams;
  maxBytes: number;
  timeoutMs: number;
}

const EXTENSIONS: Record<string, string> = {
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/quicktime': 'mov',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/x-m4a': 'm4a',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/ogg': 'ogg',
  'audio/flac': 'flac',
  'audio/webm': 'webm',
};

/** Answers that are pages or data, not media: a URL that serves one is not a media file. */
const NOT_MEDIA = /^(text\/|application\/(json|xml|xhtml\+xml|javascript)$)/;

/**
 * The scratch file's extension: from the declared type when it is a media type we know, else `bin`.
 * Never from the URL, which a stranger chooses (a `.m3u8` name once selected ffmpeg's HLS demuxer).
 */
const extensionFor = (contentType: string | null): string =>
  (contentType ? EXTENSIONS[contentType] : undefined) ?? 'bin';

function statusError(status: number, location: MediaLocation): AppError {
  const where = location.upstream === 'web' ? 'The media URL' : `${location.upstream}'s media server`;
  if (status === 404 || status === 410) {
    return new AppError('not_found', `${where} answered HTTP ${status}: the file is gone`, 'url');
  }
  if (status === 401 || status === 403) {
    return new AppError('forbidden', `${where} refused the download (HTTP ${status})`, 'url');
  }
  return new AppError('upstream_error', `${where} answered HTTP ${status}`);
}

export class MediaDownloader {
  constructor(private readonly deps: MediaDownloaderDeps) {}

  async download(
    location: MediaLocation,
    dir: string,
    options: DownloadOptions = {},
  ): Promise<DownloadedMedia> {
    const maxBytes = options.maxBytes ?? this.deps.maxBytes;
    const timeoutMs = options.timeoutMs ?? this.deps.timeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const target = this.deps.upstreams.resolve(location.upstream, location.url);
    // Platform CDNs block datacentre addresses like their pages do: a healthy proxy for the platform,
    // told how it went (a job's next attempt then avoids an exit the CDN refused).
    const pool = location.upstream === 'web' ? null : this.deps.fetcher.proxies;
    const lease = pool?.size ? await pool.take(location.upstream, { signal }) : null;
    if (lease && 'benched' in lease) throw allBenched(location.upstream, lease);
    // The exit is told once: by the CDN's answer, or by the lack of one.
    let told = false;
    let file: string | null = null;
    try {
      const res = await this.deps.fetcher.stream(target, {
        headers: { ...location.headers },
        signal,
        ...(lease && { dispatcher: lease.dispatcher }),
      });
      told = true;
      if (res.status === 429 || res.status >= 500) {
        lease?.failed(res.status === 429 ? 'blocked' : 'failed', retryAfterMs(res.headers['retry-after']));
      } else {
        lease?.succeeded();
      }
      if (res.status !== 200) {
        discard(res.body);
        throw statusError(res.status, location);
      }
      if (isPlaylistType(res.contentType)) {
        discard(res.body);
        throw playlistRefused();
      }
      if (res.contentType && NOT_MEDIA.test(res.contentType)) {
        discard(res.body);
        throw new AppError(
          'invalid_request',
          `Invalid parameter 'url': it serves ${res.contentType}, not a media file`,
          'url',
        );
      }
      if (res.contentLength !== null && res.contentLength > maxBytes) {
        discard(res.body);
        throw tooLarge(maxBytes);
      }
      file = path.join(dir, `media-${randomBytes(6).toString('hex')}.${extensionFor(res.contentType)}`);
      let bytes = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          bytes += chunk.length;
          if (bytes > maxBytes) return done(tooLarge(maxBytes));
          done(null, chunk);
        },
      });
      await pipeline(res.body, refusePlaylists(), counter, createWriteStream(file, { flags: 'wx' }), {
        signal,
      });
      return { path: file, bytes, contentType: res.contentType };
    } catch (err) {
      if (file) await rm(file, { force: true });
      // No answer at all from the CDN through this exit: a failure of the exit (unless we gave up first).
      if (!told) {
        if (err instanceof AppError || options.signal?.aborted) lease?.release();
        else lease?.failed('failed', null);
      }
      if (err instanceof AppError) throw err;
      if (options.signal?.aborted) throw options.signal.reason ?? err;
      if (timeout.aborted) {
        throw new AppError('upstream_error', `The media download took longer than ${timeoutMs} ms`);
      }
      throw new AppError('upstream_error', `The media download failed: ${(err as Error).message}`);
    }
  }
}

/** Drops a body we will not read (its abort error has nowhere to go). */
function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

const tooLarge = (maxBytes: number) =>
  new AppError(
    'payload_too_large',
    `The media file is larger than ${maxBytes} bytes (UNFURL_MEDIA_MAX_BYTES)`,
  );
