// One metadata shape for a post or video on any platform (and a plain media file), as the hosted
// service's clients read it: who posted it, its counts, what it holds (`media`: a video, an image, a
// carousel of them, or a text-only post), its tags and date. Every field is present, null where the
// platform does not show the value. Each platform folder maps what it already parses into this
// shape (pure); `Platforms.metadataOf` picks the platform. The helpers here are pure.
import type { PlatformName } from './platform-name.js';

/**
 * How answers name each platform (`platform` of this shape): as the hosted service's clients know
 * them, `twitter` for X, and `file` for a plain media file (which they do not know). The one mapping
 * from the code's PlatformName to the wire.
 */
export const WIRE_PLATFORM_NAMES = {
  youtube: 'youtube',
  tiktok: 'tiktok',
  instagram: 'instagram',
  x: 'twitter',
  facebook: 'facebook',
  direct: 'file',
} as const satisfies Record<PlatformName, string>;

export type MetadataPlatform = (typeof WIRE_PLATFORM_NAMES)[PlatformName];

/** A platform's name as answers spell it. */
export const wirePlatformName = <N extends PlatformName>(name: N): (typeof WIRE_PLATFORM_NAMES)[N] =>
  WIRE_PLATFORM_NAMES[name];

export interface VideoMedia {
  type: 'video';
  /** The file itself, where the platform hands out a stable one (null: only its player plays it). */
  url: string | null;
  /** Seconds. */
  duration: number | null;
  width: number | null;
  height: number | null;
  thumbnailUrl: string | null;
}

export interface ImageMedia {
  type: 'image';
  url: string;
  width: number | null;
  height: number | null;
}

export interface CarouselMedia {
  type: 'carousel';
  items: Array<VideoMedia | ImageMedia>;
}

export interface PostMedia {
  type: 'post';
  text: string | null;
}

export type Media = VideoMedia | ImageMedia | CarouselMedia | PostMedia;

export interface PostMetadata {
  platform: MetadataPlatform;
  /** What the post is: its media's type. */
  type: Media['type'];
  id: string;
  url: string;
  title: string | null;
  description: string | null;
  author: {
    username: string | null;
    displayName: string | null;
    avatarUrl: string | null;
    verified: boolean | null;
  };
  stats: { views: number | null; likes: number | null; comments: number | null; shares: number | null };
  media: Media;
  tags: string[];
  /** ISO 8601 (UTC). */
  createdAt: string | null;
  additionalData: Record<string, unknown>;
}

/** A video media object; unknown parts null. */
export const videoMedia = (parts: Partial<Omit<VideoMedia, 'type'>>): VideoMedia => ({
  type: 'video',
  url: parts.url ?? null,
  duration: parts.duration ?? null,
  width: parts.width ?? null,
  height: parts.height ?? null,
  thumbnailUrl: parts.thumbnailUrl ?? null,
});

/** One item alone, several as a carousel, none as a text-only post. */
export function mediaOf(items: Array<VideoMedia | ImageMedia>, text: string | null): Media {
  if (items.length === 0) return { type: 'post', text };
  if (items.length === 1) return items[0]!;
  return { type: 'carousel', items };
}

/** The post with `type` taken from its media. */
export const withType = (post: Omit<PostMetadata, 'type'>): PostMetadata => ({
  ...post,
  type: post.media.type,
});

/** Unix seconds (a number or digits) → ISO 8601; null for anything else. */
export function isoFromUnixSeconds(value: unknown): string | null {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return null;
  const date = new Date(n * 1000);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** The #hashtags of a text, each once, without the #, in order. */
export function hashtagsIn(text: string | null): string[] {
  if (!text) return [];
  return [...new Set([...text.matchAll(/(?:^|[^\p{L}\p{N}_&])#([\p{L}\p{N}_]+)/gu)].map((m) => m[1]!))];
}
