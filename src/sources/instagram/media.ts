// Instagram's logged-out post query (POST /api/graphql, PolarisLoggedOutDesktopWWWPost-
// RootContentQuery) → the post's media (video files for downloads; author, counts and every picture
// or video for its metadata); and the LSD token of its home page that the query needs. Pure.
import { asArray, asString, dig, findFirst, isRecord, type JsonRecord } from '../youtube/tree.js';

/** One picture or video of a post (a carousel has several). */
export interface InstagramItem {
  type: 'image' | 'video';
  /** The largest image, or the largest video file. */
  url: string | null;
  width: number | null;
  height: number | null;
  durationSec: number | null;
  /** A video's cover image. */
  thumbnail: string | null;
}

export interface InstagramMedia {
  shortcode: string | null;
  caption: string | null;
  /** Video files, smallest first; empty for a photo post. */
  videoUrls: string[];
  durationSec: number | null;
  hasAudio: boolean;
  /** The post itself as the query describes it. */
  post: {
    id: string | null;
    /** Unix seconds. */
    takenAt: number | null;
    author: {
      username: string | null;
      fullName: string | null;
      verified: boolean | null;
      avatar: string | null;
    };
    likes: number | null;
    comments: number | null;
    /** Plays of a video (null for photos). */
    views: number | null;
    /** The post's pictures and videos, in order (one for a single photo or video). */
    items: InstagramItem[];
    carousel: boolean;
  };
}

export type InstagramAnswer =
  | { kind: 'media'; media: InstagramMedia }
  /** The query answered but named no post (removed, private, or no such code). */
  | { kind: 'missing' }
  /** Gated: age or region restrictions, or the answer says login is required. */
  | { kind: 'gated' }
  | { kind: 'unknown' };

export const POST_QUERY_DOC_ID = '27130156389949648';
export const IG_APP_ID = '936619743392459';

/** The LSD token of a page (`["LSD",[],{"token":"…"}]`, or the __eqmc script's "l"); spacing varies. */
export function lsdToken(html: string): string | null {
  const m =
    /\[\s*"LSD"\s*,\s*\[\s*\]\s*,\s*\{\s*"token"\s*:\s*"([^"]+)"/.exec(html) ??
    /<script[^>]*id="__eqmc"[^>]*>[^<]*?"l"\s*:\s*"([^"]+)"/.exec(html);
  return m?.[1] ?? null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The largest entry of a list of {url, width, height}. */
function largest(list: unknown): JsonRecord | null {
  return (
    asArray(list)
      .filter(isRecord)
      .filter((v) => asString(v.url))
      .sort(
        (a, b) => (num(b.width) ?? 0) * (num(b.height) ?? 0) - (num(a.width) ?? 0) * (num(a.height) ?? 0),
      )[0] ?? null
  );
}

function itemOf(node: JsonRecord): InstagramItem {
  const image = largest(dig(node, 'image_versions2', 'candidates'));
  const video = largest(node.video_versions);
  const isVideo = video !== null || node.media_type === 2;
  const shown = isVideo ? video : image;
  return {
    type: isVideo ? 'video' : 'image',
    url: asString(shown?.url) ?? null,
    width: num(shown?.width) ?? num(node.original_width),
    height: num(shown?.height) ?? num(node.original_height),
    durationSec: isVideo ? num(node.video_duration) : null,
    thumbnail: isVideo ? (asString(image?.url) ?? null) : null,
  };
}

function postOf(node: JsonRecord): InstagramMedia['post'] {
  const children = asArray(node.carousel_media).filter(isRecord);
  const user = isRecord(node.user) ? node.user : isRecord(node.owner) ? node.owner : {};
  return {
    id: asString(node.pk) ?? asString(node.id)?.split('_')[0] ?? null,
    takenAt: num(node.taken_at),
    author: {
      username: asString(user.username),
      fullName: asString(user.full_name),
      verified: typeof user.is_verified === 'boolean' ? user.is_verified : null,
      avatar: asString(user.profile_pic_url),
    },
    likes: num(node.like_count),
    comments: num(node.comment_count),
    views: num(node.play_count) ?? num(node.ig_play_count) ?? num(node.view_count),
    items: children.length ? children.map(itemOf) : [itemOf(node)],
    carousel: children.length > 0,
  };
}

function mediaOf(node: JsonRecord): InstagramMedia {
  const items = asArray(node.carousel_media).filter(isRecord);
  const sources = items.length ? [node, ...items] : [node];
  const versions = sources
    .flatMap((s) => asArray(s.video_versions))
    .filter(isRecord)
    .filter((v) => asString(v.url))
    .sort((a, b) => (num(a.width) ?? 0) * (num(a.height) ?? 0) - (num(b.width) ?? 0) * (num(b.height) ?? 0));
  return {
    shortcode: asString(node.code),
    caption: asString(dig(node, 'caption', 'text')),
    videoUrls: [...new Set(versions.map((v) => v.url as string))],
    durationSec: num(node.video_duration) ?? num(sources.find((s) => num(s.video_duration))?.video_duration),
    hasAudio: node.has_audio !== false,
    post: postOf(node),
  };
}

export function parseInstagramAnswer(answer: unknown): InstagramAnswer {
  const polaris = dig(answer, 'data', 'xig_polaris_media');
  if (polaris === null) return { kind: 'missing' };
  if (isRecord(polaris)) {
    const open = polaris.if_not_gated_logged_out;
    if (isRecord(open)) return { kind: 'media', media: mediaOf(open) };
    if (polaris.gated_content_type || polaris.if_gated_logged_out) return { kind: 'gated' };
    return { kind: 'missing' };
  }
  // Other answers (a page's RelayPrefetchedStreamCache): the first node with video_versions.
  const node = findFirst(answer, 'xdt_shortcode_media') ?? findFirst(answer, 'shortcode_media');
  if (isRecord(node)) return { kind: 'media', media: mediaOf(node) };
  if (dig(answer, 'data') !== undefined) return { kind: 'missing' };
  return { kind: 'unknown' };
}
