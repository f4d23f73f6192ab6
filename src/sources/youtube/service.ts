// YouTube's capability as the routes and jobs see it: transcripts and video
// metadata over one shared client; channels, playlists, listings, comments and search over its
// browse/next/search layer.
import type { ResultCache } from '../../cache/result-cache.js';
import { AppError } from '../../errors.js';
import type { Upstreams } from '../../net/upstream.js';
import type { NativeTranscript } from '../transcript.js';
import { Browse } from './browse.js';
import { fetchChannel, toChannelRef } from './channel.fetch.js';
import type { ChannelMetadata } from './channel.parse.js';
import { type ChannelVideosOptions, fetchChannelVideos } from './channel-videos.js';
import { type WatchInfo, YouTubeClient } from './client.js';
import type { PlayerClient } from './client-table.js';
import { type CommentsOptions, fetchComments } from './comments.fetch.js';
import type { VideoComment } from './comments.parse.js';
import type { VideoIdLists } from './id-lists.js';
import { type ChannelRef, parsePlaylistId, parseVideoId } from './ids.js';
import type { Innertube } from './innertube.js';
import {
  fetchPlaylist,
  fetchPlaylistVideos,
  type PlaylistMetadata,
  type PlaylistVideosOptions,
} from './playlist.fetch.js';
import type { PoTokenSource } from './po-token.js';
import { type SearchOutcome, type SearchRequest, search } from './search.fetch.js';
import { type TranscriptRequest, YouTubeTranscripts } from './transcripts.js';
import { fetchVideo, fetchVideoPage, type VideoMetadata } from './video.js';

export interface YouTubeDeps {
  upstreams: Upstreams;
  cache: ResultCache;
  /** Player answers, watch pages and transcripts are cached this long (0: not cached). */
  ttlMs: number;
  /** The player clients in the order tried (UNFURL_YOUTUBE_CLIENTS); unset: the built-in chain. */
  clients?: readonly PlayerClient[] | null;
  /** Proof-of-origin tokens for gated caption tracks; unset: such tracks are given up. */
  poTokens?: PoTokenSource | null;
}

function toPlaylistId(id: string): string {
  const playlistId = parsePlaylistId(id);
  if (!playlistId) throw new AppError('invalid_request', `Not a playlist id or URL: ${id.slice(0, 200)}`);
  return playlistId;
}

// v2: the metadata gained `chapters`; one kept without it would fail the answer's serializer.
const videoKey = (videoId: string) => `yt:video:v2:${videoId}`;

export class YouTube {
  readonly client: YouTubeClient;
  private readonly transcripts: YouTubeTranscripts;
  private readonly browse: Browse;

  constructor(private readonly deps: YouTubeDeps) {
    this.client = new YouTubeClient(deps);
    this.transcripts = new YouTubeTranscripts(this.client, deps.cache, deps.ttlMs, deps.poTokens ?? null);
    this.browse = new Browse(this.client.innertube, deps.cache, deps.ttlMs);
  }

  get innertube(): Innertube {
    return this.client.innertube;
  }

  transcript(videoId: string, request: TranscriptRequest): Promise<NativeTranscript> {
    return this.transcripts.get(videoId, request);
  }

  /**
   * The platform's own translation of a video's captions into `lang` (or its track in that
   * language); 404 transcript_unavailable when it has none to give.
   */
  translatedTranscript(videoId: string, lang: string): Promise<NativeTranscript> {
    return this.transcripts.translated(videoId, lang);
  }

  /**
   * A video's metadata, kept whole for the cache's time once the watch page was had too (a
   * metadata without it is answered, not kept, so the next request tries the watch page again).
   */
  async video(videoId: string): Promise<VideoMetadata> {
    if (this.deps.ttlMs <= 0) return fetchVideo(this.client, videoId);
    const kept = await this.peekVideo(videoId);
    if (kept) return kept;
    const { video, watch } = await fetchVideoPage(this.client, videoId);
    if (watch) await this.deps.cache.set(videoKey(videoId), video, this.deps.ttlMs);
    return video;
  }

  /** The kept metadata of a video, if there is one; never fetches. */
  async peekVideo(videoId: string): Promise<VideoMetadata | undefined> {
    if (this.deps.ttlMs <= 0) return undefined;
    return this.deps.cache.get<VideoMetadata>(videoKey(videoId));
  }

  /** A video's metadata and its watch page (null when that could not be had). */
  videoPage(videoId: string): Promise<{ video: VideoMetadata; watch: WatchInfo | null }> {
    return fetchVideoPage(this.client, videoId);
  }

  /** A channel by UC… id, @handle or URL (a string that is none → 400). */
  async channel(ref: string | ChannelRef): Promise<ChannelMetadata> {
    return fetchChannel(this.browse, toChannelRef(ref));
  }

  /** A channel's video ids by tab; `type` defaults to `all` (videos, then shorts, then live). */
  async channelVideos(ref: string | ChannelRef, options: ChannelVideosOptions): Promise<VideoIdLists> {
    return fetchChannelVideos(this.browse, toChannelRef(ref), options);
  }

  /** A playlist's details, by id or URL (a string that is neither → 400; no such playlist → 404). */
  async playlist(id: string, signal?: AbortSignal): Promise<PlaylistMetadata> {
    return fetchPlaylist(this.browse, toPlaylistId(id), signal);
  }

  /** A playlist's video ids, by id or URL (a string that is neither → 400). */
  async playlistVideos(id: string, options: PlaylistVideosOptions): Promise<VideoIdLists> {
    return fetchPlaylistVideos(this.browse, toPlaylistId(id), options);
  }

  /** The platform's search (videos, channels, playlists); `pages` in the answer is its price. */
  search(request: SearchRequest): Promise<SearchOutcome> {
    return search(this.browse, request);
  }

  /** A video's top-level comments, by id or URL (`sort` defaults to `top`). */
  async comments(video: string, options: CommentsOptions): Promise<VideoComment[]> {
    const videoId = parseVideoId(video);
    if (!videoId) throw new AppError('invalid_request', `Not a video id or URL: ${video.slice(0, 200)}`);
    return fetchComments(this.browse, this.client, videoId, options);
  }
}
