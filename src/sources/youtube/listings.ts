// Video ids out of channel tabs, playlist pages and their browse continuations. Every layout the
// platform has used is recognised by its renderer name wherever it sits in the list:
// gridVideoRenderer (2020–21 grids and shelves), richItemRenderer > videoRenderer (2023 rich grid),
// reelItemRenderer (2023 shorts), lockupViewModel / shortsLockupViewModel (2024+),
// playlistVideoRenderer (playlists), and continuationItemRenderer / nextContinuationData for the
// token of the next page.

import { errorAlert } from './initial-data.js';
import { type PlaylistInfo, parsePlaylistInfo } from './playlist.parse.js';
import {
  asArray,
  asString,
  continuationToken,
  dig,
  findAll,
  findFirst,
  isRecord,
  type JsonRecord,
  textOf,
} from './tree.js';

export type ListedKind = 'video' | 'short' | 'live';

export interface ListedVideo {
  id: string;
  /**
   * What the item itself shows: `short` for shorts renderers, `live` for a stream live right now,
   * else `video` (premieres and past streams included — a channel's tab says what those are).
   */
  kind: ListedKind;
}

export interface VideoListPage {
  /** Video ids in page order, each once. */
  ids: string[];
  items: ListedVideo[];
  /** Token for the next page (browse `continuation`), null on the last page. */
  continuation: string | null;
}

export interface ChannelTabPage extends VideoListPage {
  /** The selected tab by its URL suffix (`videos`, `shorts`, `streams`, `featured`, …), or null. */
  tab: string | null;
  /** Every tab the channel has, by URL suffix: a missing one means the channel has none of those. */
  tabs: string[];
}

export type PlaylistPage =
  | ({ found: true; title: string | null; info: PlaylistInfo } & VideoListPage)
  | { found: false; reason: string };

const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;

const asVideoId = (v: unknown): string | null => {
  const s = asString(v);
  return s && VIDEO_ID.test(s) ? s : null;
};

/** Renderers that stand for one video, keyed by name, each giving id and kind (or null to skip). */
const VIDEO_RENDERERS: Record<string, (r: JsonRecord) => ListedVideo | null> = {
  videoRenderer: classic,
  gridVideoRenderer: classic,
  compactVideoRenderer: classic,
  videoWithContextRenderer: classic,
  playlistPanelVideoRenderer: classic,
  playlistVideoRenderer: (r) =>
    // Deleted and private entries stay in a playlist as unplayable placeholders; their ids lead
    // nowhere, so they are not listed.
    r.isPlayable === false ? null : classic(r),
  reelItemRenderer: (r) => {
    const id =
      asVideoId(r.videoId) ?? asVideoId(dig(r, 'navigationEndpoint', 'reelWatchEndpoint', 'videoId'));
    return id ? { id, kind: 'short' } : null;
  },
  shortsLockupViewModel: (r) => {
    const id =
      asVideoId(findFirst(r.onTap, 'videoId')) ??
      asVideoId(asString(r.entityId)?.replace(/^shorts-shelf-item-/, '')) ??
      asVideoId(/\/shorts\/([A-Za-z0-9_-]{11})/.exec(asString(findFirst(r.onTap, 'url')) ?? '')?.[1]);
    return id ? { id, kind: 'short' } : null;
  },
  lockupViewModel: (r) => {
    // Lockups also stand for playlists, channels, podcasts…: only video-like ones are listed.
    const type = asString(r.contentType)?.replace('LOCKUP_CONTENT_TYPE_', '') ?? null;
    if (type !== null && type !== 'VIDEO' && type !== 'SHORT') return null;
    const id = asVideoId(r.contentId) ?? asVideoId(findFirst(r.rendererContext, 'videoId'));
    if (!id) return null;
    if (type === 'SHORT') return { id, kind: 'short' };
    return { id, kind: hasLiveBadge(r.contentImage) ? 'live' : 'video' };
  },
};

/** videoRenderer and its siblings: shorts by their reel endpoint, live by a LIVE badge or overlay. */
function classic(r: JsonRecord): ListedVideo | null {
  const id = asVideoId(r.videoId);
  if (!id) return null;
  const nav = r.navigationEndpoint;
  const url = asString(dig(nav, 'commandMetadata', 'webCommandMetadata', 'url')) ?? '';
  if (isRecord(dig(nav, 'reelWatchEndpoint')) || url.startsWith('/shorts/')) return { id, kind: 'short' };
  const live =
    asArray(r.badges).some((b) => dig(b, 'metadataBadgeRenderer', 'style') === 'BADGE_STYLE_TYPE_LIVE_NOW') ||
    asArray(r.thumbnailOverlays).some(
      (o) => dig(o, 'thumbnailOverlayTimeStatusRenderer', 'style') === 'LIVE',
    );
  return { id, kind: live ? 'live' : 'video' };
}

function hasLiveBadge(node: unknown): boolean {
  return findAll(node, 'badgeStyle').some((s) => typeof s === 'string' && /_LIVE$/.test(s));
}

/**
 * Videos and the next-page token in a subtree, in document order. Video renderers are not searched
 * inside (a video's menu is no list), and only a continuation standing as an item of the list
 * counts — chip and sort-menu tokens are commands, not continuation items.
 */
export function collectVideos(root: unknown): VideoListPage {
  const items: ListedVideo[] = [];
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
      const read = VIDEO_RENDERERS[key];
      if (read) {
        const item = isRecord(value) ? read(value) : null;
        if (item && !seen.has(item.id)) {
          seen.add(item.id);
          items.push(item);
        }
      } else if (key === 'continuationItemRenderer' || key === 'nextContinuationData') {
        continuation = continuationToken(value) ?? continuation;
      } else if (typeof value === 'object' && value !== null) visit(value, depth + 1);
    }
  };
  visit(root, 0);
  return { ids: items.map((i) => i.id), items, continuation };
}

interface Tab {
  suffix: string | null;
  selected: boolean;
  content: unknown;
}

function tabsOf(initialData: unknown): Tab[] {
  const tabs =
    dig(initialData, 'contents', 'twoColumnBrowseResultsRenderer', 'tabs') ??
    dig(initialData, 'contents', 'singleColumnBrowseResultsRenderer', 'tabs');
  const out: Tab[] = [];
  for (const t of asArray(tabs)) {
    const r = dig(t, 'tabRenderer') ?? dig(t, 'expandableTabRenderer');
    if (!isRecord(r)) continue;
    const url = asString(dig(r, 'endpoint', 'commandMetadata', 'webCommandMetadata', 'url'));
    const suffix = url ? (/\/([A-Za-z]+)\/?$/.exec(url)?.[1]?.toLowerCase() ?? null) : null;
    out.push({ suffix, selected: r.selected === true, content: r.content });
  }
  return out;
}

/**
 * Videos of a channel tab page (its ytInitialData). The platform answers a tab the channel does not
 * have with its home tab, so `tab` says which one came back and `tabs` which ones exist.
 */
export function parseChannelTab(initialData: unknown): ChannelTabPage {
  const tabs = tabsOf(initialData);
  const selected = tabs.find((t) => t.selected);
  const page = collectVideos(selected ? selected.content : dig(initialData, 'contents'));
  return {
    ...page,
    tab: selected?.suffix ?? null,
    tabs: tabs.flatMap((t) => (t.suffix ? [t.suffix] : [])),
  };
}

/**
 * Videos and details of a playlist page (its ytInitialData or a browse answer for `VL<id>`). A page
 * with an ERROR alert ("The playlist does not exist.") or without any playlist in it (the landing
 * page served for some unknown ids) is `found: false`, which the endpoint answers with 404.
 * `nowMs` is when the page was fetched: "Updated 3 days ago" counts back from it.
 */
export function parsePlaylistPage(initialData: unknown, nowMs = Date.now()): PlaylistPage {
  const alert = errorAlert(initialData);
  if (alert) return { found: false, reason: alert };
  const list = findFirst(initialData, 'playlistVideoListRenderer');
  const metadata = dig(initialData, 'metadata', 'playlistMetadataRenderer');
  const header = findFirst(dig(initialData, 'header'), 'playlistHeaderRenderer');
  if (!isRecord(list) && !isRecord(metadata) && !isRecord(header)) {
    return { found: false, reason: 'not a playlist page' };
  }
  const title =
    asString(dig(metadata, 'title')) ??
    textOf(dig(header, 'title')) ??
    textOf(findFirst(dig(initialData, 'header'), 'title'));
  const page = collectVideos(isRecord(list) ? list : dig(initialData, 'contents'));
  return { found: true, title, info: parsePlaylistInfo(initialData, nowMs), ...page };
}

/**
 * Videos of a `/youtubei/v1/browse` continuation answer: `onResponseReceivedActions` (or …Commands,
 * …Endpoints) with `appendContinuationItemsAction` / `reloadContinuationItemsCommand`, or the 2020
 * `continuationContents` with `nextContinuationData`.
 */
export function parseBrowseContinuation(answer: unknown): VideoListPage {
  return collectVideos([
    dig(answer, 'onResponseReceivedActions'),
    dig(answer, 'onResponseReceivedCommands'),
    dig(answer, 'onResponseReceivedEndpoints'),
    dig(answer, 'continuationContents'),
  ]);
}

/** What a channel tab is called in browse requests and in the page's tab URLs. */
export const CHANNEL_TABS = {
  video: { suffix: 'videos', params: 'EgZ2aWRlb3PyBgQKAjoA' },
  short: { suffix: 'shorts', params: 'EgZzaG9ydHPyBgUKA5oBAA==' },
  live: { suffix: 'streams', params: 'EgdzdHJlYW1z8gYECgJ6AA==' },
} as const satisfies Record<ListedKind, { suffix: string; params: string }>;

/** Body fields of the browse request for a channel's videos, shorts or live tab. */
export function channelTabBrowse(channelId: string, kind: ListedKind): { browseId: string; params: string } {
  return { browseId: channelId, params: CHANNEL_TABS[kind].params };
}

/** browseId of a playlist. */
export function playlistBrowseId(playlistId: string): string {
  return playlistId.startsWith('VL') ? playlistId : `VL${playlistId}`;
}

/** A channel's uploads playlist (every upload, all kinds mixed, newest first), or null for non-UC ids. */
export function uploadsPlaylistId(channelId: string): string | null {
  return /^UC[A-Za-z0-9_-]{22}$/.test(channelId) ? `UU${channelId.slice(2)}` : null;
}
