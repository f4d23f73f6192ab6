// A YouTube video in the shared post metadata shape: its metadata (the spec's
// video shape) and what its watch page shows beside it (the owner's handle, avatar and badge, the
// comment count as shown). The shape has no place of its own for chapters: additionalData holds them.
// Pure.
import { type PostMetadata, videoMedia, wirePlatformName, withType } from '../post-metadata.js';
import type { WatchInfo } from './client.js';
import type { VideoMetadata } from './video.js';

export function youtubeMetadata(video: VideoMetadata, watch: WatchInfo | null): PostMetadata {
  const owner = watch?.owner ?? null;
  return withType({
    platform: wirePlatformName('youtube'),
    id: video.id,
    url: `https://www.youtube.com/watch?v=${video.id}`,
    title: video.title,
    description: video.description,
    author: {
      username: owner?.handle ?? null,
      displayName: owner?.name ?? video.channel.name,
      avatarUrl: owner?.avatar ?? null,
      verified: owner ? owner.verified : null,
    },
    stats: {
      views: video.viewCount,
      likes: video.likeCount,
      comments: watch?.commentCount ?? null,
      shares: null,
    },
    media: videoMedia({ duration: video.duration, thumbnailUrl: video.thumbnail }),
    tags: video.tags,
    createdAt: video.uploadDate,
    additionalData: {
      channelId: video.channel.id,
      isLive: video.isLive,
      transcriptLanguages: video.transcriptLanguages,
      chapters: video.chapters,
    },
  });
}
