// A channel's video ids by tab: the Videos, Shorts and Live tabs browsed with their
// params, each followed through its continuations while the limit is open. With `all` the limit
// is a total, filled with videos first, then shorts, then live — newest first within each, as the
// tabs list them. The platform answers a tab a channel does not have with another tab, so the
// answered tab is checked, and tabs the channel's page does not list are not asked for at all.
import { AppError } from '../../errors.js';
import type { Browse } from './browse.js';
import { channelLabel, resolveChannelId } from './channel.fetch.js';
import { parseChannel } from './channel.parse.js';
import { emptyLists, LIST_OF, type VideoIdLists } from './id-lists.js';
import type { ChannelRef } from './ids.js';
import { errorAlert } from './initial-data.js';
import {
  CHANNEL_TABS,
  type ChannelTabPage,
  channelTabBrowse,
  type ListedKind,
  type ListedVideo,
  parseBrowseContinuation,
  parseChannelTab,
} from './listings.js';
import { followPages, type Paged } from './paging.js';
import type { JsonRecord } from './tree.js';

export type ChannelVideoType = 'all' | ListedKind;

/** The order tabs fill an `all` listing in. */
export const TAB_ORDER: readonly ListedKind[] = ['video', 'short', 'live'];

export interface ChannelVideosOptions {
  /** Which tab, or `all` of them (the default). */
  type?: ChannelVideoType;
  /** Most ids in all (1–1000 at the API). */
  limit: number;
  signal?: AbortSignal;
}

/** A tab page, or null for an answer that holds no channel (an ERROR alert, another kind of page). */
function channelTab(answer: JsonRecord): ChannelTabPage | null {
  if (errorAlert(answer)) return null;
  const page = parseChannelTab(answer);
  return page.tabs.length > 0 || parseChannel(answer) ? page : null;
}

export async function fetchChannelVideos(
  browse: Browse,
  ref: ChannelRef,
  { type = 'all', limit, signal }: ChannelVideosOptions,
): Promise<VideoIdLists> {
  const channelId = await resolveChannelId(browse, ref);
  const notFound = `Channel ${channelLabel(ref)} not found`;
  const lists = emptyLists();
  // An id listed under an earlier tab (a stream live now shows under Videos and Live) counts once.
  const taken = new Set<string>();
  let tabs: string[] | null = null;
  for (const kind of type === 'all' ? TAB_ORDER : [type]) {
    const open = limit - taken.size;
    if (open <= 0) break;
    const suffix = CHANNEL_TABS[kind].suffix;
    if (tabs && !tabs.includes(suffix)) continue;
    const first = await browse.page('browse', channelTabBrowse(channelId, kind), channelTab, {
      cacheKey: `yt:tab:${channelId}:${kind}`,
      signal,
      notFound,
    });
    if (!first) throw new AppError('not_found', notFound, channelLabel(ref));
    if (first.tabs.length > 0) tabs = first.tabs;
    if (first.tab !== suffix) continue;
    const fresh = (page: Paged<ListedVideo>): Paged<ListedVideo> => ({
      items: page.items.filter((item) => !taken.has(item.id)),
      continuation: page.continuation,
    });
    const { items } = await followPages(
      fresh(first),
      async (token) =>
        fresh(await browse.page('browse', { continuation: token }, parseBrowseContinuation, { signal })),
      { limit: open, key: (item) => item.id },
    );
    for (const item of items) {
      taken.add(item.id);
      lists[LIST_OF[kind]].push(item.id);
    }
  }
  return lists;
}
