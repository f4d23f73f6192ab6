// A playlist's video ids: browse `VL<id>`, then its continuations (100 a page) up to the limit.
//
// How items split into the three lists: by what each item itself shows. A playlist mixes kinds and
// has no tabs to say which is which, so an item the platform marks as a short (its reel endpoint or
// a /shorts/ link) goes to `shortIds`, one marked live now (LIVE badge) to `liveIds`, and every
// other item — past streams and premieres included — to `videoIds`. `limit` counts all three, in
// playlist order. Deleted and private placeholders are left out.
import { AppError } from '../../errors.js';
import type { Browse } from './browse.js';
import { listsByKind, type VideoIdLists } from './id-lists.js';
import { parseBrowseContinuation, parsePlaylistPage, playlistBrowseId } from './listings.js';
import { followPages } from './paging.js';

export interface PlaylistVideosOptions {
  /** Most ids in all (1–1000 at the API). */
  limit: number;
  signal?: AbortSignal;
}

/** 404 when the platform has no such (public) playlist. */
export async function fetchPlaylistVideos(
  browse: Browse,
  playlistId: string,
  { limit, signal }: PlaylistVideosOptions,
): Promise<VideoIdLists> {
  const notFound = `Playlist ${playlistId} not found`;
  const first = await browse.page('browse', { browseId: playlistBrowseId(playlistId) }, parsePlaylistPage, {
    cacheKey: `yt:playlist:${playlistId}`,
    signal,
    notFound,
  });
  if (!first.found) throw new AppError('not_found', `${notFound} (${first.reason})`, playlistId);
  const { items } = await followPages(
    first,
    (token) => browse.page('browse', { continuation: token }, parseBrowseContinuation, { signal }),
    { limit, key: (item) => item.id },
  );
  return listsByKind(items);
}
