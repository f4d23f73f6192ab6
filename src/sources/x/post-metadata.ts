// An X post in the shared post metadata shape: its text is the description (a post has no
// title), replies count as comments and reposts as shares; photos, videos and GIFs are the media,
// several of them a carousel, none a text-only post. Pure.
import {
  hashtagsIn,
  type ImageMedia,
  mediaOf,
  type PostMetadata,
  type VideoMedia,
  videoMedia,
  wirePlatformName,
  withType,
} from '../post-metadata.js';
import type { PostVideo, XPost } from './post.js';

export function xMetadata(post: XPost, videos: readonly PostVideo[]): PostMetadata {
  const items = post.media.map((m): VideoMedia | ImageMedia => {
    if (m.type === 'image') return { type: 'image', url: m.url, width: null, height: null };
    const file = videos.find((v) => v.url === m.url);
    return videoMedia({ url: m.url, duration: file?.durationSec ?? null });
  });
  return withType({
    platform: wirePlatformName('x'),
    id: post.id,
    url: post.url,
    title: null,
    description: post.text,
    author: {
      username: post.author.username,
      displayName: post.author.displayName,
      avatarUrl: post.author.profileImageUrl,
      verified: post.author.verified,
    },
    stats: {
      views: post.stats.views,
      likes: post.stats.likes,
      comments: post.stats.replies,
      shares: post.stats.retweets,
    },
    media: mediaOf(items, post.text),
    tags: hashtagsIn(post.text),
    createdAt: post.createdAt,
    additionalData: { bookmarks: post.stats.bookmarks, quotedTweet: post.quotedTweet },
  });
}
