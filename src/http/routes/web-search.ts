// Web search: POST /v1/web/search, through the operator's SearXNG (UNFURL_SEARXNG_URL), 1 credit a
// search; without one, 503 naming the setting before anything is held.
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { prices } from '../../billing/prices.js';
import { invalid } from '../../errors.js';
import { mcpTool } from '../../mcp/tools.js';
import {
  maxScrapeExtras,
  type ScrapeOptionsInput,
  ScrapeOptionsSchema,
  scrapeRequest,
} from '../../sources/web/scrape-options.js';
import {
  SEARCH_CATEGORIES,
  SEARCH_LIMITS,
  SEARCH_TIME_RANGES,
  type SearchAsk,
} from '../../sources/web/search-parse.js';
import { scrapeResults } from '../../sources/web/search-scrape.js';
import type { HttpContext } from '../context.js';
import { principal } from '../plugins/auth.js';
import { paid } from '../plugins/billing.js';
import { errorResponses, Nullable, StringEnum } from '../schemas/common.js';
import type { RoutePlugin } from '../typed.js';

const SearchBody = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      maxLength: SEARCH_LIMITS.queryLength,
      description: 'What to search for (SearXNG syntax: `site:`, `!engine` bangs and `:lang` work)',
    }),
    limit: Type.Integer({
      minimum: 1,
      maximum: SEARCH_LIMITS.maxLimit,
      default: SEARCH_LIMITS.defaultLimit,
      description: `Most results (1–${SEARCH_LIMITS.maxLimit}); a page of SearXNG's may hold fewer`,
    }),
    lang: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$',
        maxLength: 35,
        description: 'Language of the results (BCP 47: en, pt-BR); its language and region go to SearXNG',
      }),
    ),
    country: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]{2}$',
        description: 'Region of `lang` (ISO 3166-1 alpha-2: GB with lang=en searches en-GB); needs `lang`',
      }),
    ),
    timeRange: Type.Optional(
      StringEnum(SEARCH_TIME_RANGES, { description: 'Only pages published within the last day, week, …' }),
    ),
    categories: Type.Optional(
      Type.Array(StringEnum(SEARCH_CATEGORIES), {
        minItems: 1,
        maxItems: SEARCH_CATEGORIES.length,
        description: "SearXNG's categories to search (default: its general category)",
      }),
    ),
    page: Type.Integer({
      minimum: 1,
      maximum: SEARCH_LIMITS.maxPage,
      default: 1,
      description: "SearXNG's page of results, from 1",
    }),
    scrapeOptions: Type.Optional(
      Type.Object(ScrapeOptionsSchema.properties, {
        additionalProperties: false,
        description:
          "Also scrape each result's page with these options (those of POST /v1/web/scrape): its `document`, billed as that scrape",
      }),
    ),
  },
  { additionalProperties: false },
);

const WebSearchResult = Type.Object({
  url: Type.String({ description: 'An http(s) URL; each page once' }),
  title: Type.String(),
  description: Type.String({ description: "The engines' snippet of the page ('' when none)" }),
  engines: Type.Array(Type.String(), { description: 'The engines that found it' }),
  category: Nullable(Type.String({ description: 'general, news, images, videos, …' })),
  publishedDate: Nullable(Type.String({ description: 'ISO 8601, as the engine gave it' })),
  thumbnail: Nullable(Type.String()),
  imageUrl: Nullable(Type.String({ description: 'The image itself (image results)' })),
  document: Type.Optional(Type.Ref('ScrapeDocument', { description: 'The page, with scrapeOptions' })),
  scrapeError: Type.Optional(
    Type.Object(
      { error: Type.String(), message: Type.String() },
      { description: 'Why the page could not be scraped (not billed)' },
    ),
  ),
});

export const WebSearchAnswer = Type.Object(
  {
    query: Type.String({ description: 'The query as the search backend read it' }),
    results: Type.Array(WebSearchResult),
    answers: Type.Array(Type.String(), { description: 'Direct answers some engines give' }),
    suggestions: Type.Array(Type.String(), { description: 'Related queries' }),
    corrections: Type.Array(Type.String(), { description: 'Spelling corrections of the query' }),
    unresponsiveEngines: Type.Array(Type.Object({ engine: Type.String(), error: Type.String() }), {
      description: 'Engines that failed this time: the results are what the others found',
    }),
  },
  {
    $id: 'WebSearchAnswer',
    title: 'WebSearchAnswer',
    examples: [
      {
        query: 'unfurl url metadata',
        results: [
          {
            url: 'https://example.com/unfurling',
            title: 'What is URL unfurling?',
            description: 'Unfurling turns a link into a preview: its title, description and image…',
            engines: ['duckduckgo', 'brave'],
            category: 'general',
            publishedDate: null,
            thumbnail: null,
            imageUrl: null,
          },
        ],
        answers: [],
        suggestions: ['unfurl link preview'],
        corrections: [],
        unresponsiveEngines: [],
      },
    ],
  },
);

export type WebSearchDeps = Pick<HttpContext, 'webSearch' | 'web' | 'charges'>;

export const webSearchRoutes: RoutePlugin<WebSearchDeps> = async (app, { webSearch, web, charges }) => {
  app.addSchema(WebSearchAnswer);

  app.post(
    '/v1/web/search',
    {
      schema: {
        tags: ['Web'],
        operationId: 'webSearch',
        ...mcpTool({
          name: 'web_search',
          description:
            'Search the web: up to `limit` results (url, title, description), with direct answers and ' +
            'suggestions when the engines give them. 1 credit.',
        }),
        summary: "Search the web through the server's SearXNG: URLs, titles and descriptions",
        description:
          "One page of results from the operator's SearXNG instance, each page once (http and https " +
          'URLs only), at most `limit`. 1 credit a search; nothing when it fails. Without a SearXNG ' +
          'configured (UNFURL_SEARXNG_URL), or when it is down or refuses, 503 `provider_unavailable`.',
        body: SearchBody,
        response: {
          200: Type.Ref('WebSearchAnswer'),
          ...errorResponses(400, 401, 402, 429, 502, 503),
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      if (!body.query.trim()) throw invalid('query', 'must not be blank');
      if (body.country && !body.lang) {
        throw invalid(
          'country',
          'needs lang: results are searched in a language of a region (lang=en, country=GB)',
        );
      }
      // Before anything is held: a server without search answers 503, not 402.
      webSearch.requireConfigured();
      const ask: SearchAsk = {
        query: body.query.trim(),
        limit: body.limit,
        lang: body.lang,
        country: body.country,
        timeRange: body.timeRange,
        categories: body.categories,
        page: body.page,
      };
      return runWebSearch({ webSearch, web, charges }, request, reply, ask, body.scrapeOptions);
    },
  );
};

/**
 * A paid search, each result's page scraped too when `scrapeOptions` are given: held at the search
 * plus `limit` scrapes at their most, settled on the search plus the pages scraped (a page that
 * failed costs nothing). Our route and Firecrawl's both answer from it.
 */
export async function runWebSearch(
  { webSearch, web, charges }: WebSearchDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  ask: SearchAsk,
  scrapeOptions: Partial<ScrapeOptionsInput> | undefined,
) {
  const label = { operation: 'web_search', description: 'Web search' };
  if (!scrapeOptions) {
    return paid(charges, request, reply, prices.searchPerPage, label, () => webSearch.search(ask));
  }
  const scrapeAsk = scrapeRequest(scrapeOptions, 'scrapeOptions.');
  web.documents.requireModelFor(scrapeAsk);
  const { accountId } = principal(request);
  const most = prices.searchPerPage + ask.limit * (prices.syncRequest + maxScrapeExtras(scrapeAsk));
  const answer = await paid(
    charges,
    request,
    reply,
    most,
    label,
    async () => {
      const found = await webSearch.search(ask);
      const scraped = await scrapeResults(found.results, (url) =>
        web.documents.scrape(url, scrapeAsk, { accountId }),
      );
      return { ...found, results: scraped };
    },
    (done) =>
      prices.searchPerPage +
      done.results.reduce((sum, r) => sum + (r.document ? prices.syncRequest + r.document.extras : 0), 0),
  );
  return {
    ...answer,
    results: answer.results.map(({ document, ...result }) =>
      document ? { ...result, document: document.document } : result,
    ),
  };
}
