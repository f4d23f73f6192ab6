// The platform's search: innertube `search` with the query and the filters as `params`, then its
// continuations. Without `limit` one page is answered with a `nextPageToken` of ours (the query and
// the platform's token, so a later call needs nothing else); with `limit` pages are followed until
// that many results are in hand, the list runs out, or the page cap for that limit is reached.
// `pages` says how many pages of results were fetched (a cached first page included): the price is
// one credit each. First pages are cached like other first pages; continuations are always live.
import { invalid } from '../../errors.js';
import type { Browse } from './browse.js';
import { followPages } from './paging.js';
import { parseSearchPage, type SearchPage, type SearchResult } from './search.parse.js';
import { type SearchFilters, searchParams } from './search-params.js';

export const MAX_SEARCH_LIMIT = 1000;
const MAX_QUERY_CHARS = 500;
const MAX_TOKEN_CHARS = 8192;
const TOKEN_PREFIX = 'ufs1.';

export interface SearchRequest extends SearchFilters {
  /** Required unless `nextPageToken` is given (which carries its query). */
  query?: string;
  /** Most results in all (1–1000), pages followed to reach it; unset: one page and a next-page token. */
  limit?: number;
  /** A token from an earlier answer: its query goes on from there, and filters are not asked again. */
  nextPageToken?: string;
  signal?: AbortSignal;
}

export interface SearchOutcome {
  query: string;
  results: SearchResult[];
  /** The platform's estimate of all matches, null when it gave none. */
  totalResults: number | null;
  /** Only without `limit`: the token of the next page, null on the last one. */
  nextPageToken: string | null;
  /** Pages of results fetched: what the search costs, one credit each. */
  pages: number;
}

/** The most pages a search may fetch: one without `limit`; with it, enough for ten results a page. */
export function maxSearchPages(limit?: number): number {
  return limit === undefined ? 1 : Math.ceil(limit / 10) + 1;
}

export function encodePageToken(query: string, continuation: string): string {
  return TOKEN_PREFIX + Buffer.from(JSON.stringify({ q: query, c: continuation })).toString('base64url');
}

/** The query and platform token inside one of our tokens; anything else → 400 naming it. */
export function decodePageToken(token: string): { query: string; continuation: string } {
  const bad = () => invalid('nextPageToken', 'not a token this API handed out');
  if (token.length > MAX_TOKEN_CHARS || !token.startsWith(TOKEN_PREFIX)) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token.slice(TOKEN_PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  const { q, c } = (parsed ?? {}) as { q?: unknown; c?: unknown };
  if (typeof q !== 'string' || typeof c !== 'string' || c === '' || q.length > MAX_QUERY_CHARS) throw bad();
  return { query: q, continuation: c };
}

function checkQuery(query: string | undefined): string {
  const q = query?.trim() ?? '';
  if (q === '') throw invalid('query', 'a search needs a query (or a nextPageToken)');
  if (q.length > MAX_QUERY_CHARS) throw invalid('query', `at most ${MAX_QUERY_CHARS} characters`);
  return q;
}

const resultKey = (r: SearchResult) => `${r.type}:${r.id}`;

export async function search(browse: Browse, request: SearchRequest): Promise<SearchOutcome> {
  const { limit, signal } = request;
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= MAX_SEARCH_LIMIT)) {
    throw invalid('limit', `must be an integer from 1 to ${MAX_SEARCH_LIMIT}`);
  }
  const parse = (answer: unknown): SearchPage => parseSearchPage(answer, Date.now());
  const continuationPage = (token: string, fromCaller: boolean) =>
    browse.page('search', { continuation: token }, parse, {
      signal,
      ...(fromCaller && { invalidParam: 'nextPageToken' }),
    });

  let query: string;
  let first: SearchPage;
  if (request.nextPageToken !== undefined) {
    const token = decodePageToken(request.nextPageToken);
    query = token.query;
    first = await continuationPage(token.continuation, true);
  } else {
    query = checkQuery(request.query);
    const params = searchParams(request);
    first = await browse.page('search', { query, ...(params && { params }) }, parse, {
      cacheKey: `yt:search:${params}:${query}`,
      signal,
    });
  }

  if (limit === undefined) {
    return {
      query,
      results: first.results,
      totalResults: first.estimatedResults,
      nextPageToken: first.continuation ? encodePageToken(query, first.continuation) : null,
      pages: 1,
    };
  }
  const walked = await followPages(
    { items: first.results, continuation: first.continuation },
    async (token) => {
      const page = await continuationPage(token, false);
      return { items: page.results, continuation: page.continuation };
    },
    { limit, key: resultKey, maxPages: maxSearchPages(limit) - 1 },
  );
  return {
    query,
    results: walked.items,
    totalResults: first.estimatedResults,
    nextPageToken: null,
    pages: 1 + walked.fetched,
  };
}
