// A social-network video or reel in the shared post metadata shape, from its parsed page. The
// logged-out page shows no counts: they are null. Pure.
import {
  hashtagsIn,
  isoFromUnixSeconds,
  type PostMetadata,
  videoMedia,
  wirePlatformName,
  withType,
} from '../post-metadata.js';
import type { FacebookVideo } from './page.js';

export function facebookMetadata(video: FacebookVideo, id: string, url: string): PostMetadata {
  const { post } = video;
  return withType({
    platform: wirePlatformName('facebook'),
    id: video.id ?? id,
    url,
    title: post.title,
    description: post.description,
    author: { username: null, displayName: post.owner.name, avatarUrl: null, verified: null },
    stats: { views: null, likes: null, comments: null, shares: null },
    media: videoMedia({ duration: video.durationSec, thumbnailUrl: post.thumbnail }),
    tags: hashtagsIn(post.description),
    createdAt: isoFromUnixSeconds(post.publishedAt),
    additionalData: {
      ownerId: post.owner.id,
      captionLanguages: [...new Set(video.captions.map((c) => c.lang))],
    },
  });
}
