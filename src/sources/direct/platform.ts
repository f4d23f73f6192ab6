// Direct media file URLs as the sixth source: recognised by extension, fetched as they are (the
// content type is checked when downloading, the file probed by the job that uses it).
import { AppError } from '../../errors.js';
import type { SafeFetcher } from '../../net/safe-fetch.js';
import type { MediaLocation, MediaRef, NativeTranscriptRequest, Platform } from '../platform.js';
import type { NativeTranscript } from '../transcript.js';
import { directMediaKind } from './ids.js';

export class DirectPlatform implements Platform {
  readonly name = 'direct' as const;

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

  async locateMedia(ref: MediaRef): Promise<MediaLocation> {
    const kind = directMediaKind(new URL(ref.url)) ?? 'video';
    return { upstream: 'web', url: ref.url, durationSec: null, kind };
  }
}
