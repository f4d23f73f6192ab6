// The video-sharing platform's capability as the routes and jobs see it: transcripts and video
// metadata over one shared client; channels, listings and comments over its browse/next layer.
import type { ResultCache } from '../../cache/result-cache.js';
import { AppError } from '../../errors.js';
import type { Upstreams } from '../../net/upstream.js';
import type { NativeTranscript } from '../transcript.js';
import { Browse } from './browse.js';
import type { ChannelMetadata } from './channel.js';
import { type ChannelVideosOptions, fetchChannelVideos } from './channel-videos.js';
import { fetchChannel, toChannelRef } from './channels.js';
import { YouTubeClient } from './client.js';
import type { VideoComment } from './comments.js';
import { type CommentsOptions, fetchComments } from './comments-fetch.js';
import type { VideoIdLists } from './id-lists.js';
import { type ChannelRef, parsePlaylistId, parseVideoId } from './ids.js';
import type { Innertube } from './innertube.js';
import { fetchPlaylistVideos, type PlaylistVideosOptions } from './playlists.js';
import { type TranscriptRequest, YouTubeTranscripts } from './transcripts.js';
import { fetchVideo, type VideoMetadata } from './video.js';

export interface YouTubeDeps {
  upstreams: Upstreams;
  cache: ResultCache;
  /** Player answers, watch pages and transcripts are cached this long (0: not cached). */
  ttlMs: number;
}

export class YouTube {
  readonly client: YouTubeClient;
  private readonly transcripts: YouTubeTranscripts;
  private readonly browse: Browse;

  constructor(deps: YouTubeDeps) {
    this.client = new YouTubeClient(deps);
    this.transcripts = new YouTubeTranscripts(this.client, deps.cache, deps.ttlMs);
    this.browse = new Browse(this.client.innertube, deps.cache, deps.ttlMs);
  }

  get innertube(): Innertube {
    return this.client.innertube;
  }

  transcript(videoId: string, request: TranscriptRequest): Promise<NativeTranscript> {
    return this.transcripts.get(videoId, request);
  }

  video(videoId: string): Promise<VideoMetadata> {
    return fetchVideo(this.client, videoId);
  }

  /** A channel by UC… id, @handle or URL (a string that is none → 400). */
  async channel(ref: string | ChannelRef): Promise<ChannelMetadata> {
    return fetchChannel(this.browse, toChannelRef(ref));
  }

  /** A channel's video ids by tab; `type` defaults to `all` (videos, then shorts, then live). */
  async channelVideos(ref: string | ChannelRef, options: ChannelVideosOptions): Promise<VideoIdLists> {
    return fetchChannelVideos(this.browse, toChannelRef(ref), options);
  }

  /** A playlist's video ids, by id or URL (a string that is neither → 400). */
  async playlistVideos(id: string, options: PlaylistVideosOptions): Promise<VideoIdLists> {
    const playlistId = parsePlaylistId(id);
    if (!playlistId) throw new AppError('invalid_request', `Not a playlist id or URL: ${id.slice(0, 200)}`);
    return fetchPlaylistVideos(this.browse, playlistId, options);
  }

  /** A video's top-level comments, by id or URL (`sort` defaults to `top`). */
  async comments(video: string, options: CommentsOptions): Promise<VideoComment[]> {
    const videoId = parseVideoId(video);
    if (!videoId) throw new AppError('invalid_request', `Not a video id or URL: ${video.slice(0, 200)}`);
    return fetchComments(this.browse, this.client, videoId, options);
  }
}
