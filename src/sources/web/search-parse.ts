// Web search through SearXNG's JSON API (GET {base}/search?format=json): the query string sent for a
// search, and the answer read back. Pure.
//
// SearXNG answers (searx/webutils.py get_json_response) `{query, results, answers, corrections,
// infoboxes, suggestions, unresponsive_engines}` (older releases add `number_of_results`). A result is a
// MainResult or a legacy dict: `url, title, content, engine, engines, score, category, publishedDate
// (ISO 8601 or null), thumbnail, img_src, parsed_url, template, positions, …`; an answer is
// `{answer, url, engine, …}` (a plain string in old releases); an unresponsive engine is
// `[name, error text]`. SearXNG merges the results engines agree on, but keeps the same page under
// http and https, or under two templates; those are merged here, and only http(s) results are kept.
import { AppError } from '../../errors.js';

export const SEARCH_CATEGORIES = ['general', 'news', 'images', 'videos', 'science', 'it'] as const;
export type SearchCategory = (typeof SEARCH_CATEGORIES)[number];

export const SEARCH_TIME_RANGES = ['day', 'week', 'month', 'year'] as const;
export type SearchTimeRange = (typeof SEARCH_TIME_RANGES)[number];

/** The bounds of POST /v1/web/search's fields. */
export const SEARCH_LIMITS = { queryLength: 500, maxLimit: 50, defaultLimit: 10, maxPage: 50 } as const;

/** One search, as the route validated it. */
export interface SearchAsk {
  query: string;
  /** Most results answered (SearXNG gives what its engines found on that page: often 10 to 30). */
  limit: number;
  /** BCP 47; only its language and region go to SearXNG (`pt-BR`, `en`). */
  lang?: string;
  /** ISO 3166-1 alpha-2: the region of `lang` (`lang=en&country=GB` → `en-GB`). Needs `lang`. */
  country?: string;
  timeRange?: SearchTimeRange;
  categories?: readonly SearchCategory[];
  /** SearXNG's page of results, from 1. */
  page?: number;
}

export interface SearchResult {
  url: string;
  title: string;
  /** The engines' snippet of the page. */
  description: string;
  /** The engines that found it, the first one's first. */
  engines: string[];
  /** SearXNG's category of the result (general, news, images, …). */
  category: string | null;
  /** As the engine gave it (ISO 8601; without a zone when the engine gave none). */
  publishedDate: string | null;
  thumbnail: string | null;
  /** The image itself, for image results. */
  imageUrl: string | null;
}

export interface SearchAnswer {
  /** The query as SearXNG read it. */
  query: string;
  results: SearchResult[];
  /** Direct answers some engines give (a definition, a conversion). */
  answers: string[];
  /** Other queries the engines suggest. */
  suggestions: string[];
  /** Spelling corrections of the query. */
  corrections: string[];
  /** Engines that failed or timed out for this search: the results are what the others found. */
  unresponsiveEngines: Array<{ engine: string; error: string }>;
}

/** SearXNG's `language`: the language and, from `country` or the tag itself, its region (`en-GB`). */
export function searxngLanguage(lang: string, country?: string): string {
  const [primary = '', ...rest] = lang.split('-');
  const region = country ?? rest.find((part) => /^[A-Za-z]{2}$/.test(part));
  return region ? `${primary.toLowerCase()}-${region.toUpperCase()}` : primary.toLowerCase();
}

/** The query string of a search (without `format=json`, which the client adds). */
export function searxngParams(ask: SearchAsk): URLSearchParams {
  const params = new URLSearchParams({ q: ask.query });
  if (ask.lang) params.set('language', searxngLanguage(ask.lang, ask.country));
  if (ask.timeRange) params.set('time_range', ask.timeRange);
  if (ask.categories?.length) params.set('categories', [...new Set(ask.categories)].join(','));
  if (ask.page && ask.page > 1) params.set('pageno', String(ask.page));
  return params;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.map(str).filter((s): s is string => s !== null) : [];

/** An absolute http(s) URL, else null (a relative image-proxy path, data:, javascript:, …). */
function webUrl(v: unknown): URL | null {
  const s = str(v);
  if (!s) return null;
  try {
    const url = new URL(s);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** The same page under http and https, or with another fragment, is one result. */
const pageKey = (url: URL) => `${url.host}${url.pathname}${url.search}`;

function publishedDate(v: unknown): string | null {
  const s = str(v);
  return s && !Number.isNaN(Date.parse(s)) ? s : null;
}

function engines(raw: Record<string, unknown>): string[] {
  const first = str(raw.engine);
  return [...new Set([...(first ? [first] : []), ...strings(raw.engines)])];
}

function answerText(v: unknown): string | null {
  if (typeof v === 'string') return str(v);
  if (v && typeof v === 'object') return str((v as { answer?: unknown }).answer);
  return null;
}

const notSearxng = (what: string) =>
  new AppError(
    'upstream_error',
    `The search backend (SearXNG) answered JSON that is not a search answer: ${what}`,
  );

/** The answer to `ask` from SearXNG's JSON: http(s) results only, merged by page, at most `limit`. */
export function parseSearxngAnswer(body: unknown, ask: Pick<SearchAsk, 'query' | 'limit'>): SearchAnswer {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw notSearxng('not an object');
  const raw = body as Record<string, unknown>;
  if (!Array.isArray(raw.results)) throw notSearxng('no results list');
  const byPage = new Map<string, SearchResult>();
  for (const item of raw.results as unknown[]) {
    if (!item || typeof item !== 'object') continue;
    const r = item as Record<string, unknown>;
    const url = webUrl(r.url);
    if (!url) continue;
    url.hash = '';
    const key = pageKey(url);
    const seen = byPage.get(key);
    if (seen) {
      // Later duplicates add their engines and fill what the first one lacked (https over http).
      if (url.protocol === 'https:' && seen.url.startsWith('http:')) seen.url = url.href;
      seen.engines = [...new Set([...seen.engines, ...engines(r)])];
      if (!seen.description) seen.description = str(r.content) ?? '';
      seen.publishedDate ??= publishedDate(r.publishedDate);
      seen.thumbnail ??= webUrl(r.thumbnail)?.href ?? null;
      continue;
    }
    if (byPage.size >= ask.limit) continue;
    byPage.set(key, {
      url: url.href,
      title: str(r.title) ?? url.href,
      description: str(r.content) ?? '',
      engines: engines(r),
      category: str(r.category),
      publishedDate: publishedDate(r.publishedDate),
      thumbnail: webUrl(r.thumbnail)?.href ?? null,
      imageUrl: webUrl(r.img_src)?.href ?? null,
    });
  }
  const unresponsive = Array.isArray(raw.unresponsive_engines) ? raw.unresponsive_engines : [];
  return {
    query: str(raw.query) ?? ask.query,
    results: [...byPage.values()],
    answers: [
      ...new Set((Array.isArray(raw.answers) ? raw.answers : []).map(answerText).filter((a) => a !== null)),
    ],
    suggestions: strings(raw.suggestions),
    corrections: strings(raw.corrections),
    unresponsiveEngines: unresponsive.flatMap((e: unknown) => {
      if (!Array.isArray(e)) return [];
      const engine = str(e[0]);
      return engine ? [{ engine, error: str(e[1]) ?? 'no answer' }] : [];
    }),
  };
}
