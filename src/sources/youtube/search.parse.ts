// A search answer → results in the API's shape, the token of the next page, the estimated total.
// The first answer lists results under `contents` (sectionListRenderer > itemSectionRenderer, or a
// rich grid of richItemRenderer); a continuation answer under onResponseReceivedCommands >
// appendContinuationItemsAction. Results are recognised by renderer name wherever they sit:
// videoRenderer and movieRenderer (videos), channelRenderer, playlistRenderer and radioRenderer
// (mixes), and the 2024+ lockupViewModel (playlists and videos). Shelves beside the results ("People
// also watched", "Latest from …", a Shorts shelf) and ads are the platform's suggestions, not
// matches of the query: they are skipped. Pure.
import { parseCount, parseRelativeTime } from './counts.js';
import {
  asArray,
  asString,
  bestImage,
  continuationToken,
  dig,
  findAll,
  findFirst,
  isRecord,
  type JsonRecord,
  textOf,
} from './tree.js';

export interface SearchChannelRef {
  id: string | null;
  name: string | null;
  thumbnail: string | null;
}

export interface VideoResult {
  type: 'video';
  id: string;
  title: string | null;
  description: string | null;
  thumbnail: string | null;
  /** Seconds; null for a live stream or where not shown. */
  duration: number | null;
  viewCount: number | null;
  /** ISO 8601, as approximate as the platform's "3 years ago". */
  uploadDate: string | null;
  channel: SearchChannelRef;
  isLive: boolean;
}

export interface ChannelResult {
  type: 'channel';
  id: string;
  title: string | null;
  /** The same as `title` (the hosted service's clients read either). */
  name: string | null;
  handle: string | null;
  description: string | null;
  thumbnail: string | null;
  subscriberCount: number | null;
  videoCount: number | null;
}

export interface PlaylistResult {
  type: 'playlist';
  id: string;
  title: string | null;
  description: string | null;
  thumbnail: string | null;
  videoCount: number | null;
  channel: SearchChannelRef;
}

export type SearchResult = VideoResult | ChannelResult | PlaylistResult;

export interface SearchPage {
  results: SearchResult[];
  /** Token of the next page, null on the last. */
  continuation: string | null;
  /** The platform's estimate of all matches, null when it gives none. */
  estimatedResults: number | null;
}

const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;
const CHANNEL_ID = /^UC[A-Za-z0-9_-]{22}$/;

/** Containers of suggestions and ads, never searched for results. */
const SKIPPED = new Set([
  'shelfRenderer',
  'richShelfRenderer',
  'reelShelfRenderer',
  'gridShelfViewModel',
  'horizontalCardListRenderer',
  'searchPyvRenderer',
  'promotedSparklesWebRenderer',
  'compactPromotedItemRenderer',
  'adSlotRenderer',
  'universalWatchCardRenderer',
  'searchRefinementCardRenderer',
]);

/** "3:35", "1:02:03" → seconds. */
export function parseDuration(text: string | null): number | null {
  if (!text || !/^\d+(:\d{1,2}){0,2}$/.test(text.trim())) return null;
  return text
    .trim()
    .split(':')
    .reduce((total, part) => total * 60 + Number(part), 0);
}

/** Owner of a result from its byline runs: name, and id when the run links a channel. */
function ownerOf(r: JsonRecord): SearchChannelRef {
  const byline = r.ownerText ?? r.longBylineText ?? r.shortBylineText;
  const id = asString(findFirst(byline, 'browseId'));
  const thumb = findFirst(r.channelThumbnailSupportedRenderers ?? r.channelThumbnail, 'thumbnail');
  return {
    id: id && CHANNEL_ID.test(id) ? id : null,
    name: asString(dig(byline, 'runs', 0, 'text')) ?? textOf(byline),
    thumbnail: bestImage(thumb ?? r.channelThumbnail),
  };
}

const snippet = (r: JsonRecord): string | null =>
  textOf(findFirst(r.detailedMetadataSnippets, 'snippetText')) ?? textOf(r.descriptionSnippet);

function isLive(r: JsonRecord): boolean {
  return (
    asArray(r.badges).some((b) => dig(b, 'metadataBadgeRenderer', 'style') === 'BADGE_STYLE_TYPE_LIVE_NOW') ||
    asArray(r.thumbnailOverlays).some((o) => dig(o, 'thumbnailOverlayTimeStatusRenderer', 'style') === 'LIVE')
  );
}

function video(r: JsonRecord, nowMs: number): VideoResult | null {
  const id = asString(r.videoId);
  if (!id || !VIDEO_ID.test(id)) return null;
  const live = isLive(r);
  const views = textOf(r.viewCountText);
  return {
    type: 'video',
    id,
    title: textOf(r.title),
    description: snippet(r),
    thumbnail: bestImage(r.thumbnail),
    duration: live ? null : parseDuration(textOf(r.lengthText)),
    // A stream live now shows how many watch ("6,699 watching"), not its views.
    viewCount: live || (views && /watching/i.test(views)) ? null : parseCount(views),
    uploadDate: parseRelativeTime(textOf(r.publishedTimeText), nowMs),
    channel: ownerOf(r),
    isLive: live,
  };
}

function channel(r: JsonRecord): ChannelResult | null {
  const id = asString(r.channelId);
  if (!id || !CHANNEL_ID.test(id)) return null;
  const title = textOf(r.title);
  const base = asString(findFirst(r.navigationEndpoint, 'canonicalBaseUrl'));
  // Since 2024 the handle stands where the subscriber count was, and the subscriber count where
  // the video count was: each number is taken from the text that names it.
  const texts = [textOf(r.subscriberCountText), textOf(r.videoCountText)].filter((t): t is string => !!t);
  const handle =
    (base?.startsWith('/@') ? base.slice(1) : null) ?? texts.find((t) => t.startsWith('@')) ?? null;
  return {
    type: 'channel',
    id,
    title,
    name: title,
    handle,
    description: textOf(r.descriptionSnippet),
    thumbnail: bestImage(r.thumbnail),
    subscriberCount: parseCount(texts.find((t) => /subscriber/i.test(t))),
    videoCount: parseCount(texts.find((t) => /\bvideos?\b/i.test(t))),
  };
}

/** A playlist, or a mix (`mix`: the platform's own list, "YouTube" its only owner). */
function playlist(r: JsonRecord, mix: boolean): PlaylistResult | null {
  const id = asString(r.playlistId);
  if (!id) return null;
  const count = asString(r.videoCount) ?? textOf(r.videoCountText) ?? textOf(r.thumbnailText);
  const owner = ownerOf(r);
  return {
    type: 'playlist',
    id,
    title: textOf(r.title),
    description: null,
    thumbnail: bestImage(
      findFirst(r.thumbnailRenderer, 'thumbnail') ?? asArray(r.thumbnails)[0] ?? r.thumbnail,
    ),
    // A mix has no fixed length ("50+ videos").
    videoCount: count && !/\+/.test(count) ? parseCount(count) : null,
    channel: mix ? { id: null, name: null, thumbnail: null } : owner,
  };
}

/** A 2024+ lockup: playlists (and the odd video) as view models with metadata rows. */
function lockup(r: JsonRecord, nowMs: number): SearchResult | null {
  const type = asString(r.contentType)?.replace('LOCKUP_CONTENT_TYPE_', '') ?? null;
  const id = asString(r.contentId);
  if (!id) return null;
  const meta = findFirst(r.metadata, 'lockupMetadataViewModel');
  const title = textOf(dig(meta, 'title'));
  const parts = findAll(meta, 'metadataParts').flatMap((p) => asArray(p));
  const texts = parts.map((p) => textOf(dig(p, 'text'))).filter((t): t is string => !!t);
  const ownerPart = parts.find((p) => CHANNEL_ID.test(asString(findFirst(p, 'browseId')) ?? ''));
  const owner: SearchChannelRef = {
    id: ownerPart ? (asString(findFirst(ownerPart, 'browseId')) as string) : null,
    name: ownerPart ? textOf(dig(ownerPart, 'text')) : null,
    thumbnail: bestImage(findFirst(dig(meta, 'image'), 'image')),
  };
  const thumbnail = bestImage(findFirst(r.contentImage, 'image'));
  const badges = findAll(r.contentImage, 'thumbnailBadgeViewModel').map((b) => textOf(dig(b, 'text')));
  if (type === 'PLAYLIST' || type === 'PODCAST' || type === 'ALBUM') {
    const count = [...badges, ...texts].find((t) => t && /\b(videos?|episodes?)\b/i.test(t)) ?? null;
    return {
      type: 'playlist',
      id,
      title,
      description: null,
      thumbnail,
      videoCount: count && !/\+/.test(count) ? parseCount(count) : null,
      channel: owner,
    };
  }
  if ((type === 'VIDEO' || type === null) && VIDEO_ID.test(id)) {
    const live = badges.some((b) => b !== null && /^live$/i.test(b));
    const views = texts.find((t) => /\bviews?\b/i.test(t)) ?? null;
    return {
      type: 'video',
      id,
      title,
      description: null,
      thumbnail,
      duration: live ? null : parseDuration(badges.find((b) => b !== null && /^\d+(:\d+)+$/.test(b)) ?? null),
      viewCount: live ? null : parseCount(views),
      uploadDate: parseRelativeTime(texts.find((t) => /\bago\b/i.test(t)) ?? null, nowMs),
      channel: owner,
      isLive: live,
    };
  }
  return null;
}

type Reader = (r: JsonRecord, nowMs: number) => SearchResult | null;

const READERS: Record<string, Reader> = {
  videoRenderer: video,
  movieRenderer: video,
  channelRenderer: channel,
  playlistRenderer: (r) => playlist(r, false),
  radioRenderer: (r) => playlist(r, true),
  lockupViewModel: lockup,
};

/**
 * Results of a search answer (first page or continuation) in document order, each once. `nowMs` is
 * when the answer came: "3 years ago" counts back from it.
 */
export function parseSearchPage(answer: unknown, nowMs: number): SearchPage {
  const results: SearchResult[] = [];
  const seen = new Set<string>();
  let continuation: string | null = null;
  const visit = (node: unknown, depth: number): void => {
    if (depth > 400) return;
    if (Array.isArray(node)) {
      for (const child of node) if (typeof child === 'object' && child !== null) visit(child, depth + 1);
      return;
    }
    if (!isRecord(node)) return;
    for (const key in node) {
      const value = node[key];
      if (SKIPPED.has(key)) continue;
      const read = READERS[key];
      if (read) {
        const result = isRecord(value) ? read(value, nowMs) : null;
        if (result && !seen.has(`${result.type}:${result.id}`)) {
          seen.add(`${result.type}:${result.id}`);
          results.push(result);
        }
      } else if (key === 'continuationItemRenderer') {
        continuation = continuationToken(value) ?? continuation;
      } else if (typeof value === 'object' && value !== null) visit(value, depth + 1);
    }
  };
  visit(
    [
      dig(answer, 'contents'),
      dig(answer, 'onResponseReceivedCommands'),
      dig(answer, 'onResponseReceivedActions'),
    ],
    0,
  );
  return { results, continuation, estimatedResults: parseCount(asString(dig(answer, 'estimatedResults'))) };
}
