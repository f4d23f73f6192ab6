// Video metadata (the spec's shape): the mobile player answer gives the details and caption tracks;
// the watch page adds what only web answers carry (upload date, likes, the chapters it marks). The
// watch page is best effort: when the platform blocks it those two fields are null and chapters come
// from the description alone; the rest is still answered.
import { AppError } from '../../errors.js';
import { isPlatformRefusal } from '../../net/upstream.js';
import type { Chapter } from '../transcript.js';
import { videoChapters } from './chapters.js';
import type { WatchInfo, YouTubeClient } from './client.js';
import { type PlayerInfo, playabilityError, type Thumbnail } from './player.js';
import { availableLangs } from './tracks.js';

export interface VideoMetadata {
  id: string;
  title: string | null;
  description: string | null;
  /** Seconds; null while live. */
  duration: number | null;
  channel: { id: string | null; name: string | null };
  tags: string[];
  thumbnail: string | null;
  /** ISO 8601 date-time (UTC). */
  uploadDate: string | null;
  viewCount: number | null;
  likeCount: number | null;
  /** Broadcasting live now. */
  isLive: boolean;
  transcriptLanguages: string[];
  /** In order, the last ending at `duration`; [] when the video has none. */
  chapters: Chapter[];
}

/** A platform date ("2018-08-02T06:00:08-07:00" or "2019-12-05") as an ISO 8601 UTC date-time. */
export function isoDate(value: string | null | undefined): string | null {
  if (!value) return null;
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

const widest = (list: Thumbnail[]) =>
  list.reduce<Thumbnail | null>((a, t) => (!a || t.width * t.height > a.width * a.height ? t : a), null);

/** The metadata of a video from its player answer and, when there is one, its watch page. */
export function toVideo(
  videoId: string,
  player: PlayerInfo,
  watch: Pick<WatchInfo, 'player' | 'likeCount' | 'chapters'> | null,
): VideoMetadata {
  const web = watch?.player ?? null;
  const d = player.details ?? web?.details ?? null;
  const micro = web?.microformat ?? player.microformat;
  const isLive = !!(d?.isLive || micro?.isLiveNow);
  // Captions: the player that has them (a web answer lists the same languages).
  const tracks = player.tracks.length > 0 ? player.tracks : (web?.tracks ?? []);
  const duration = isLive && !d?.lengthSeconds ? null : (d?.lengthSeconds ?? null);
  return {
    id: d?.videoId ?? videoId,
    title: d?.title ?? null,
    description: d?.description ?? null,
    duration,
    channel: { id: d?.channelId ?? null, name: d?.author ?? null },
    tags: d?.keywords ?? [],
    thumbnail: widest([...(d?.thumbnails ?? []), ...(micro?.thumbnails ?? [])])?.url ?? null,
    uploadDate: isoDate(micro?.uploadDate ?? micro?.publishDate ?? micro?.liveStart),
    viewCount: d?.viewCount ?? null,
    likeCount: micro?.likeCount ?? watch?.likeCount ?? null,
    isLive,
    transcriptLanguages: availableLangs(tracks),
    chapters: isLive ? [] : videoChapters(watch?.chapters, d?.description ?? null, duration),
  };
}

/** Fetches and assembles a video's metadata: 404 when the platform has no such (visible) video. */
export async function fetchVideo(client: YouTubeClient, videoId: string): Promise<VideoMetadata> {
  return (await fetchVideoPage(client, videoId)).video;
}

/** A video's metadata and, when it could be had, its watch page (owner, comment count). */
export async function fetchVideoPage(
  client: YouTubeClient,
  videoId: string,
): Promise<{ video: VideoMetadata; watch: WatchInfo | null }> {
  // Both at once. The watch page is only an addition: a page that is not there (or not readable)
  // leaves its fields null. But a page the platform kept blocking fails the request (unbilled, to be
  // retried) rather than answer a silently poorer copy of the video.
  const watchPromise = client.watch(videoId).then(
    (page) => ({ page, blocked: null }),
    (err: unknown) => ({ page: null, blocked: isPlatformRefusal(err) ? err : null }),
  );
  let player: PlayerInfo | null = null;
  let last: unknown = null;
  try {
    player = await client.playerFor(videoId, 'metadata');
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'upstream_error') throw err;
    last = err;
  }
  const { page: watch, blocked } = await watchPromise;
  if (blocked) throw blocked;
  // Every player client failed: the watch page's own player answer still describes the video.
  const answer = player ?? watch?.player ?? null;
  if (!answer) throw last ?? new AppError('upstream_error', 'youtube answered no player');
  const err = playabilityError(answer, 'metadata', videoId);
  if (err) throw err;
  if (!answer.details && !watch?.player?.details) {
    throw new AppError('not_found', `Video ${videoId} not found or not available`, videoId);
  }
  return { video: toVideo(videoId, answer, watch), watch };
}
