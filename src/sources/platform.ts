// The contract every video platform folder implements, and what the media pipeline (speech
// recognition, OCR, describe, extract) needs from it: where the media of a URL can be downloaded;
// and the post's metadata in the one shape every platform shares.
import type { PlatformName } from './platform-name.js';
import type { PostMetadata } from './post-metadata.js';
import type { Chapter, NativeTranscript } from './transcript.js';

export type { PlatformName };

/** A recognised video (or post) of one platform. */
export interface MediaRef {
  readonly platform: PlatformName;
  /** The platform's id of the video or post (the file URL itself for `direct`). */
  readonly id: string;
  /** The canonical URL of the video (after short links were resolved). */
  readonly url: string;
}

/** Where a video's media file can be fetched. */
export interface MediaLocation {
  /** The upstream name its host belongs to (`UNFURL_UPSTREAM_<NAME>` overrides it); `web` for plain URLs. */
  readonly upstream: string;
  readonly url: string;
  /** Headers the platform's CDN wants (referer, user agent). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Seconds, when the platform says; null when only probing the file will tell. */
  readonly durationSec: number | null;
  /** Whether the file has pictures (OCR and describe need them) or is sound only. */
  readonly kind: 'video' | 'audio';
}

export interface NativeTranscriptRequest {
  readonly lang?: string;
  readonly signal?: AbortSignal;
}

export interface Platform {
  readonly name: PlatformName;
  /** Its own name as descriptions list it (`YouTube`; `a direct media file (.mp4 …)`). */
  readonly displayName: string;
  /** What URLs it takes, as the 400 for a URL no platform takes lists them (`youtube.com/youtu.be`). */
  readonly accepts: string;
  /** A video of this platform named by the URL, null when the URL is not this platform's. Short links resolve here. */
  recognise(url: URL, signal?: AbortSignal): Promise<MediaRef | null>;
  /** Captions the platform publishes; throws AppError transcript_unavailable (404) when it has none. */
  nativeTranscript(ref: MediaRef, request: NativeTranscriptRequest): Promise<NativeTranscript>;
  /** The media file of the video (403/404 AppErrors for private, removed, …). */
  locateMedia(ref: MediaRef, signal?: AbortSignal): Promise<MediaLocation>;
  /** The post or video in the shared metadata shape (404 not_found when there is no such post). */
  metadata(ref: MediaRef, signal?: AbortSignal): Promise<PostMetadata>;
  /**
   * Optional, cheaper than locateMedia: throws the 403/404 AppErrors of a video that cannot be had
   * (checked before speech recognition is handed the video). Without it, locateMedia is asked.
   */
  checkAvailable?(ref: MediaRef, signal?: AbortSignal): Promise<void>;
  /**
   * Optional, only for platforms whose videos have chapters: the video's chapters ([] when it has
   * none), for transcripts asked with chapters=true. Without it such a transcript has no chapter fields.
   */
  chapters?(ref: MediaRef, signal?: AbortSignal): Promise<Chapter[]>;
}
