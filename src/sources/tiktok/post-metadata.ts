// A TikTok post in the shared post metadata shape, from its parsed page. Pure.
import {
  hashtagsIn,
  isoFromUnixSeconds,
  type PostMetadata,
  videoMedia,
  wirePlatformName,
  withType,
} from '../post-metadata.js';
import type { TikTokVideo } from './page.js';

export function tiktokMetadata(video: TikTokVideo, url: string): PostMetadata {
  return withType({
    platform: wirePlatformName('tiktok'),
    id: video.id,
    url,
    // A post has a caption, no title.
    title: null,
    description: video.description,
    author: {
      username: video.author,
      displayName: video.authorName,
      avatarUrl: video.authorAvatar,
      verified: video.authorVerified,
    },
    stats: {
      views: video.stats.plays,
      likes: video.stats.likes,
      comments: video.stats.comments,
      shares: video.stats.shares,
    },
    media: videoMedia({
      duration: video.durationSec,
      width: video.width,
      height: video.height,
      thumbnailUrl: video.cover,
    }),
    tags: video.hashtags.length ? video.hashtags : hashtagsIn(video.description),
    createdAt: isoFromUnixSeconds(video.createdAt),
    additionalData: { saves: video.stats.saves, music: video.music },
  });
}
