// The browse/next/search layer the listings, channel pages, comments and search share: one
// innertube request as the WEB client (the client whose answers these parsers read), parsed at once.
// First pages are cached parsed (`cacheKey`, the configured upstream TTL, one shared fetch for
// concurrent identical requests); continuation pages are not — a walk always continues live.
import { cached, type ResultCache } from '../../cache/result-cache.js';
import type { Innertube } from './innertube.js';
import type { JsonRecord } from './tree.js';

/**
 * What a browse, next or search request asks for: a page by id (a channel tab, `VL<playlist>`), a
 * search by query, or a continuation token.
 */
export type BrowseBody =
  | { browseId: string; params?: string }
  | { query: string; params?: string }
  | { continuation: string };

export interface PageOptions {
  /** Cache the parsed page under this key (first pages only). */
  cacheKey?: string;
  /** Cancels an uncached request; a cached load is shared, so it runs to its end. */
  signal?: AbortSignal;
  /** The message of the 404 answered when the platform says HTTP 404. */
  notFound?: string;
  /** The caller's parameter named in a 400 when the platform says HTTP 400 (a token of theirs). */
  invalidParam?: string;
}

export class Browse {
  constructor(
    readonly innertube: Innertube,
    private readonly cache: ResultCache,
    private readonly ttlMs: number,
  ) {}

  /** One page of `browse`, `next` or `search`, parsed by `parse` (which may throw, e.g. not_found). */
  page<T>(
    endpoint: 'browse' | 'next' | 'search',
    body: BrowseBody,
    parse: (answer: JsonRecord) => T,
    options: PageOptions = {},
  ): Promise<T> {
    const load = async (signal?: AbortSignal) =>
      parse(
        await this.innertube.call(endpoint, body, {
          client: 'WEB',
          signal,
          notFound: options.notFound,
          invalidParam: options.invalidParam,
        }),
      );
    if (options.cacheKey === undefined) return load(options.signal);
    options.signal?.throwIfAborted();
    return this.cached(options.cacheKey, () => load());
  }

  /** Any value derived from the platform, cached like first pages. */
  cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    return cached(this.cache, key, this.ttlMs, load);
  }
}
