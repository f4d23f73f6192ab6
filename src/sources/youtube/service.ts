// The video-sharing platform's capability as the routes and jobs see it: transcripts and video
// metadata over one shared client (and its innertube helper, for browse/next callers).
import type { ResultCache } from '../../cache/result-cache.js';
import type { Upstreams } from '../../net/upstream.js';
import type { NativeTranscript } from '../transcript.js';
import { YouTubeClient } from './client.js';
import type { Innertube } from './innertube.js';
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

  constructor(deps: YouTubeDeps) {
    this.client = new YouTubeClient(deps);
    this.transcripts = new YouTubeTranscripts(this.client, deps.cache, deps.ttlMs);
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
}
