// Firecrawl's search over ours (the operator's SearXNG): its sources as our categories, its `tbs`
// time filters as our time ranges, its domain lists applied to the results, and each result as
// Firecrawl lists it — {url, title, description}, or the scraped document with them when it asked
// for scrapeOptions.
import { Type } from '@sinclair/typebox';
import { invalid } from '../errors.js';
import type { ScrapeDocument } from '../sources/web/documents.js';
import {
  SEARCH_LIMITS,
  type SearchAsk,
  type SearchCategory,
  type SearchTimeRange,
} from '../sources/web/search-parse.js';
import { FirecrawlScrapeOptions } from './document.js';

const Source = Type.Union([Type.String(), Type.Object({ type: Type.String() })]);

export const FirecrawlSearchBody = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: SEARCH_LIMITS.queryLength }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SEARCH_LIMITS.maxLimit })),
    sources: Type.Optional(Type.Array(Source, { maxItems: 3 })),
    categories: Type.Optional(Type.Array(Source, { maxItems: 5 })),
    tbs: Type.Optional(Type.String({ maxLength: 50 })),
    location: Type.Optional(Type.String({ maxLength: 200 })),
    country: Type.Optional(Type.String({ maxLength: 10 })),
    lang: Type.Optional(Type.String({ maxLength: 35 })),
    includeDomains: Type.Optional(Type.Array(Type.String({ maxLength: 253 }), { maxItems: 50 })),
    excludeDomains: Type.Optional(Type.Array(Type.String({ maxLength: 253 }), { maxItems: 50 })),
    ignoreInvalidURLs: Type.Optional(Type.Boolean()),
    // v1: a filter string for its own engine (not used).
    filter: Type.Optional(Type.String({ maxLength: 500 })),
    timeout: Type.Optional(Type.Integer({ minimum: 0 })),
    scrapeOptions: Type.Optional(FirecrawlScrapeOptions),
    integration: Type.Optional(Type.String()),
    origin: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

type Body = typeof FirecrawlSearchBody.static;

/** Firecrawl's sources (and its v1 categories) that our SearXNG categories cover. */
const CATEGORIES: Record<string, SearchCategory> = {
  web: 'general',
  news: 'news',
  images: 'images',
  research: 'science',
  github: 'it',
};

/** Google's `tbs` past-time filters, which Firecrawl passes through. */
const TIME_RANGES: Record<string, SearchTimeRange> = {
  'qdr:d': 'day',
  'qdr:w': 'week',
  'qdr:m': 'month',
  'qdr:y': 'year',
};

/** Our search for Firecrawl's body. */
export function searchAsk(body: Body): SearchAsk {
  const categories = new Set<SearchCategory>();
  for (const [key, list] of [
    ['sources', body.sources],
    ['categories', body.categories],
  ] as const) {
    for (const [i, source] of (list ?? []).entries()) {
      const name = typeof source === 'string' ? source : source.type;
      const category = CATEGORIES[name];
      if (!category) throw invalid(`${key}[${i}]`, `one of ${Object.keys(CATEGORIES).join(', ')}`);
      categories.add(category);
    }
  }
  let timeRange: SearchTimeRange | undefined;
  if (body.tbs) {
    timeRange = TIME_RANGES[body.tbs];
    if (!timeRange)
      throw invalid('tbs', `one of ${Object.keys(TIME_RANGES).join(', ')} (Unfurl has no date ranges)`);
  }
  if (body.includeDomains?.length && body.excludeDomains?.length) {
    throw invalid('excludeDomains', 'give includeDomains or excludeDomains, not both');
  }
  const country = body.country && /^[A-Za-z]{2}$/.test(body.country) ? body.country.toLowerCase() : undefined;
  return {
    query: body.query.trim(),
    limit: body.limit ?? 5,
    page: 1,
    ...(body.lang && { lang: body.lang }),
    // Our search takes a region only with a language; Firecrawl's country alone is left out.
    ...(body.lang && country && { country }),
    ...(timeRange && { timeRange }),
    ...(categories.size > 0 && { categories: [...categories] }),
  };
}

/** Whether a URL's host is one of `domains` or under one. */
function onDomain(url: string, domains: readonly string[]): boolean {
  const host = URL.canParse(url) ? new URL(url).hostname.toLowerCase() : '';
  return domains.some((d) => {
    const domain = d.toLowerCase().replace(/^\*?\./, '');
    return host === domain || host.endsWith(`.${domain}`);
  });
}

interface OurResult {
  url: string;
  title: string;
  description?: string;
  category?: string | null;
  imageUrl?: string | null;
  document?: ScrapeDocument;
}

/** Our answer's results in Firecrawl's lists (web, news, images), the domain lists applied. */
export function searchData(
  body: Body,
  results: readonly OurResult[],
  toDocument: (doc: ScrapeDocument) => Record<string, unknown>,
): Record<string, unknown[]> {
  const lists: Record<string, unknown[]> = {};
  for (const r of results) {
    if (body.includeDomains?.length && !onDomain(r.url, body.includeDomains)) continue;
    if (body.excludeDomains?.length && onDomain(r.url, body.excludeDomains)) continue;
    const list = r.category === 'news' ? 'news' : r.category === 'images' ? 'images' : 'web';
    const base =
      list === 'images'
        ? { url: r.url, title: r.title, imageUrl: r.imageUrl ?? undefined }
        : { url: r.url, title: r.title, description: r.description ?? '' };
    lists[list] = [...(lists[list] ?? []), r.document ? { ...base, ...toDocument(r.document) } : base];
  }
  return lists;
}
