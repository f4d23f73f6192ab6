// An Instagram post (photo, video or reel, carousel) in the shared post metadata shape, from its
// post query answer. The site shows no share count. Pure.
import {
  hashtagsIn,
  type ImageMedia,
  isoFromUnixSeconds,
  mediaOf,
  type PostMetadata,
  type VideoMedia,
  videoMedia,
  wirePlatformName,
  withType,
} from '../post-metadata.js';
import type { InstagramItem, InstagramMedia } from './media.js';

function item(i: InstagramItem): VideoMedia | ImageMedia | null {
  if (i.type === 'video') {
    return videoMedia({
      url: i.url,
      duration: i.durationSec,
      width: i.width,
      height: i.height,
      thumbnailUrl: i.thumbnail,
    });
  }
  return i.url ? { type: 'image', url: i.url, width: i.width, height: i.height } : null;
}

export function instagramMetadata(media: InstagramMedia, shortcode: string, url: string): PostMetadata {
  const { post } = media;
  const items = post.items.map(item).filter((i): i is VideoMedia | ImageMedia => i !== null);
  // A carousel of one left is still a carousel: the post is one.
  const shown =
    post.carousel && items.length > 0 ? { type: 'carousel' as const, items } : mediaOf(items, media.caption);
  return withType({
    platform: wirePlatformName('instagram'),
    id: media.shortcode ?? shortcode,
    url,
    title: null,
    description: media.caption,
    author: {
      username: post.author.username,
      displayName: post.author.fullName,
      avatarUrl: post.author.avatar,
      verified: post.author.verified,
    },
    stats: { views: post.views, likes: post.likes, comments: post.comments, shares: null },
    media: shown,
    tags: hashtagsIn(media.caption),
    createdAt: isoFromUnixSeconds(post.takenAt),
    additionalData: {
      mediaId: post.id,
      hasAudio: items.some((i) => i.type === 'video') ? media.hasAudio : null,
    },
  });
}
