// The spec's "Video id lists" (channel and playlist listings): three arrays, always present.
import type { ListedKind, ListedVideo } from './listings.js';

export interface VideoIdLists {
  /** Regular videos (premieres and past streams a playlist holds included). */
  videoIds: string[];
  shortIds: string[];
  liveIds: string[];
}

/** The array of the lists that a kind of video goes into. */
export const LIST_OF: Readonly<Record<ListedKind, keyof VideoIdLists>> = {
  video: 'videoIds',
  short: 'shortIds',
  live: 'liveIds',
};

export const emptyLists = (): VideoIdLists => ({ videoIds: [], shortIds: [], liveIds: [] });

/** Listed videos split by what each item itself shows (short, live now, else video), order kept. */
export function listsByKind(items: readonly ListedVideo[]): VideoIdLists {
  const lists = emptyLists();
  for (const item of items) lists[LIST_OF[item.kind]].push(item.id);
  return lists;
}
