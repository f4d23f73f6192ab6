// A playlist: its details (the first page's header and sidebar), and its video ids — browse
// `VL<id>`, then its continuations (100 a page) up to the limit. Both read the same first page,
// fetched once and cached.
//
// How items split into the three lists: by what each item itself shows. A playlist mixes kinds and
// has no tabs to say which is which, so an item the platform marks as a short (its reel endpoint or
// a /shorts/ link) goes to `shortIds`, one marked live now (LIVE badge) to `liveIds`, and every
// other item — past streams and premieres included — to `videoIds`. `limit` counts all three, in
// playlist order. Deleted and private placeholders are left out.
import { AppError } from '../../errors.js';
import type { Browse } from './browse.js';
import { listsByKind, type VideoIdLists } from './id-lists.js';
import {
  type PlaylistPage,
  parseBrowseContinuation,
  parsePlaylistPage,
  playlistBrowseId,
} from './listings.js';
import { followPages } from './paging.js';
import type { PlaylistInfo } from './playlist.parse.js';

export interface PlaylistVideosOptions {
  /** Most ids in all (1–1000 at the API). */
  limit: number;
  signal?: AbortSignal;
}

/** A playlist's details: every field present, null where the page does not show it. */
export interface PlaylistMetadata extends PlaylistInfo {
  id: string;
}

type FoundPlaylist = Extract<PlaylistPage, { found: true }>;

/** The first page of a playlist; 404 when the platform has no such (public) playlist. */
async function firstPage(browse: Browse, playlistId: string, signal?: AbortSignal): Promise<FoundPlaylist> {
  const notFound = `Playlist ${playlistId} not found`;
  const first = await browse.page('browse', { browseId: playlistBrowseId(playlistId) }, parsePlaylistPage, {
    cacheKey: `yt:playlist:${playlistId}`,
    signal,
    notFound,
  });
  if (!first.found) throw new AppError('not_found', `${notFound} (${first.reason})`, playlistId);
  return first;
}

export async function fetchPlaylist(
  browse: Browse,
  playlistId: string,
  signal?: AbortSignal,
): Promise<PlaylistMetadata> {
  const { info } = await firstPage(browse, playlistId, signal);
  return { id: playlistId, ...info };
}

export async function fetchPlaylistVideos(
  browse: Browse,
  playlistId: string,
  { limit, signal }: PlaylistVideosOptions,
): Promise<VideoIdLists> {
  const first = await firstPage(browse, playlistId, signal);
  const { items } = await followPages(
    first,
    (token) => browse.page('browse', { continuation: token }, parseBrowseContinuation, { signal }),
    { limit, key: (item) => item.id },
  );
  return listsByKind(items);
}
