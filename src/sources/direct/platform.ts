// Direct media file URLs as the sixth source: recognised by extension, fetched as they are (the
// content type is checked when downloading, the file probed by the job that uses it).
import { AppError } from '../../errors.js';
import type { SafeFetcher, SafeResponse } from '../../net/safe-fetch.js';
import type { MediaLocation, MediaRef, NativeTranscriptRequest, Platform } from '../platform.js';
import type { PostMetadata } from '../post-metadata.js';
import type { NativeTranscript } from '../transcript.js';
import { DIRECT_IDENTITY } from './identity.js';
import { directMediaKind } from './ids.js';
import { type FileHead, fileMetadata } from './post-metadata.js';

const header = (res: SafeResponse, name: string): string | null => {
  const value = res.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
};

export class DirectPlatform implements Platform {
  readonly name = DIRECT_IDENTITY.name;
  readonly displayName = DIRECT_IDENTITY.displayName;
  readonly accepts = DIRECT_IDENTITY.accepts;

  constructor(private readonly fetcher: SafeFetcher) {}

  async recognise(url: URL): Promise<MediaRef | null> {
    if (!directMediaKind(url)) return null;
    // Refuse private addresses now rather than when a job downloads it.
    const checked = this.fetcher.checkUrl(url.toString(), 'url');
    return { platform: 'direct', id: checked.toString(), url: checked.toString() };
  }

  async nativeTranscript(ref: MediaRef, _request: NativeTranscriptRequest): Promise<NativeTranscript> {
    throw new AppError('transcript_unavailable', 'A media file has no captions of its own', ref.url);
  }

  async metadata(ref: MediaRef, signal?: AbortSignal): Promise<PostMetadata> {
    return fileMetadata(ref.url, await this.head(ref, signal));
  }

  /**
   * What the file's server says of it: a HEAD request, or the first byte by GET where HEAD is not
   * allowed. 404 when there is no file, or when what is there is a page rather than media.
   */
  private async head(ref: MediaRef, signal?: AbortSignal): Promise<FileHead> {
    let res = await this.fetcher.fetch(ref.url, { method: 'HEAD', signal, maxBytes: 0, truncate: true });
    if (res.status === 405 || res.status === 501) {
      res = await this.fetcher.fetch(ref.url, {
        headers: { range: 'bytes=0-0' },
        signal,
        maxBytes: 1024,
        truncate: true,
      });
    }
    if (res.status === 404 || res.status === 410) {
      throw new AppError('not_found', `No file at ${ref.url.slice(0, 300)}`, ref.url);
    }
    if (res.status < 200 || res.status >= 300) {
      throw new AppError('upstream_error', `The file's server answered HTTP ${res.status}`);
    }
    if (res.contentType === 'text/html' || res.contentType === 'application/xhtml+xml') {
      throw new AppError(
        'not_found',
        `No media file at ${ref.url.slice(0, 300)} (the server answers a web page)`,
        ref.url,
      );
    }
    // "bytes 0-0/12345" carries the size of the whole file; a HEAD answer its Content-Length.
    const total = /\/(\d+)$/.exec(header(res, 'content-range') ?? '')?.[1];
    const length = res.status === 206 ? total : header(res, 'content-length');
    return {
      contentType: res.contentType,
      bytes: length && /^\d+$/.test(length) ? Number(length) : null,
      lastModified: header(res, 'last-modified'),
      kind: directMediaKind(new URL(ref.url)) ?? 'video',
    };
  }

  async locateMedia(ref: MediaRef): Promise<MediaLocation> {
    const kind = directMediaKind(new URL(ref.url)) ?? 'video';
    return { upstream: 'web', url: ref.url, durationSec: null, kind };
  }
}
