// The photo-sharing site's logged-out post query (POST /api/graphql, PolarisLoggedOutDesktopWWWPost-
// RootContentQuery) → the post's media; and the LSD token of its home page that the query needs. Pure.
import { asArray, asString, dig, findFirst, isRecord, type JsonRecord } from '../youtube/tree.js';

export interface InstagramMedia {
  shortcode: string | null;
  caption: string | null;
  /** Video files, smallest first; empty for a photo post. */
  videoUrls: string[];
  durationSec: number | null;
  hasAudio: boolean;
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
