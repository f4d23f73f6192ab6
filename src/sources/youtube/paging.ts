// Following continuation tokens until enough items are in hand: the one loop channel listings,
// playlists and comments share. The platform repeats items across pages (a playlist's page seam,
// a re-ranked comment), sometimes hands back the token it was given, and never promises an end,
// so items are de-duplicated across pages, a repeated token ends the walk, and so does a page cap.

export interface Paged<T> {
  items: T[];
  continuation: string | null;
}

export interface FollowOptions<T> {
  /** How many items to return at most. */
  limit: number;
  /** Identity of an item for de-duplication across pages. */
  key: (item: T) => string;
  /** Pages fetched after the first at most (a guard against endless or empty-page chains). */
  maxPages?: number;
}

export interface Followed<T> {
  items: T[];
  /** True when the list ran out (no further token, a repeated token or the page cap) before `limit`. */
  exhausted: boolean;
  /** Pages fetched after the first. */
  fetched: number;
}

/**
 * The first `limit` distinct items of `first` and the pages after it, fetching a next page only
 * while fewer are in hand.
 */
export async function followPages<T>(
  first: Paged<T>,
  next: (token: string) => Promise<Paged<T>>,
  { limit, key, maxPages = 100 }: FollowOptions<T>,
): Promise<Followed<T>> {
  const items: T[] = [];
  const seen = new Set<string>();
  const tokens = new Set<string>();
  let page = first;
  let fetched = 0;
  for (;;) {
    for (const item of page.items) {
      const k = key(item);
      if (seen.has(k)) continue;
      seen.add(k);
      items.push(item);
      if (items.length >= limit) return { items, exhausted: false, fetched };
    }
    const token = page.continuation;
    if (!token || tokens.has(token) || fetched >= maxPages) return { items, exhausted: true, fetched };
    tokens.add(token);
    fetched++;
    page = await next(token);
  }
}
