// Firecrawl's v2 API over our engines, for its SDKs and the tools built on them: the same account,
// key, prices, holds, limits and SSRF rules as our own routes, in Firecrawl's envelope
// ({success, data}; errors {success: false, error}, see plugins/errors.ts).
import { Type } from '@sinclair/typebox';
import { prices } from '../billing/prices.js';
import { thisMonth } from '../billing/usage.js';
import { AppError } from '../errors.js';
import type { HttpContext } from '../http/context.js';
import { principal } from '../http/plugins/auth.js';
import { paid } from '../http/plugins/billing.js';
import { paidScrape } from '../http/routes/web.js';
import { runWebSearch } from '../http/routes/web-search.js';
import type { RoutePlugin } from '../http/typed.js';
import { scrapeRequest } from '../sources/web/scrape-options.js';
import { FirecrawlScrapeOptions, toFirecrawlDocument, toScrapeOptions } from './document.js';
import { firecrawlErrors as errors } from './errors.js';
import { FIRECRAWL_TAG } from './paths.js';
import { FirecrawlSearchBody, searchAsk, searchData } from './search.js';

export type FirecrawlDeps = Pick<
  HttpContext,
  'web' | 'fetcher' | 'charges' | 'accounts' | 'usage' | 'jobs' | 'config' | 'webSearch'
>;

const PageUrl = Type.String({ minLength: 1, maxLength: 4096, description: 'An http(s) URL' });
/** Firecrawl's answers are documented loosely here: their shape is Firecrawl's (see its API reference). */
const Answer = Type.Object({ success: Type.Boolean() }, { additionalProperties: true });

/** Our map's own ceiling: a larger Firecrawl limit answers this many. */
const MAP_LIMIT = 10_000;

/** Firecrawl features Unfurl does not have: answered, by name, never with a 404 that looks like a typo. */
const UNSUPPORTED: { method: 'GET' | 'POST' | 'DELETE' | 'PATCH'; path: string; feature: string }[] = [
  { method: 'POST', path: '/v2/agent', feature: "the hosted agent (Firecrawl's /agent)" },
  { method: 'GET', path: '/v2/agent', feature: "the hosted agent (Firecrawl's /agent)" },
  { method: 'GET', path: '/v2/agent/*', feature: "the hosted agent (Firecrawl's /agent)" },
  { method: 'DELETE', path: '/v2/agent/*', feature: "the hosted agent (Firecrawl's /agent)" },
  { method: 'POST', path: '/v2/browser', feature: 'browser sessions' },
  { method: 'GET', path: '/v2/browser', feature: 'browser sessions' },
  { method: 'POST', path: '/v2/browser/*', feature: 'browser sessions' },
  { method: 'DELETE', path: '/v2/browser/*', feature: 'browser sessions' },
  { method: 'POST', path: '/v2/scrape/*', feature: 'interacting with a scrape after it ended' },
  { method: 'DELETE', path: '/v2/scrape/*', feature: 'interacting with a scrape after it ended' },
  { method: 'POST', path: '/v2/parse', feature: 'parsing uploaded files' },
  { method: 'POST', path: '/v2/search/developer', feature: "Firecrawl's developer search" },
  { method: 'GET', path: '/v2/search/*', feature: "Firecrawl's paper and research search" },
  { method: 'POST', path: '/v2/search/*', feature: 'search feedback' },
  { method: 'POST', path: '/v2/feedback', feature: 'feedback' },
  { method: 'POST', path: '/v2/crawl/params-preview', feature: 'crawl parameters from a prompt' },
  { method: 'POST', path: '/v2/monitor', feature: "Firecrawl's monitors (Unfurl has its own: /v1/monitors)" },
  { method: 'GET', path: '/v2/monitor', feature: "Firecrawl's monitors (Unfurl has its own: /v1/monitors)" },
  {
    method: 'GET',
    path: '/v2/monitor/*',
    feature: "Firecrawl's monitors (Unfurl has its own: /v1/monitors)",
  },
  {
    method: 'PATCH',
    path: '/v2/monitor/*',
    feature: "Firecrawl's monitors (Unfurl has its own: /v1/monitors)",
  },
  {
    method: 'POST',
    path: '/v2/monitor/*',
    feature: "Firecrawl's monitors (Unfurl has its own: /v1/monitors)",
  },
  {
    method: 'DELETE',
    path: '/v2/monitor/*',
    feature: "Firecrawl's monitors (Unfurl has its own: /v1/monitors)",
  },
  {
    method: 'GET',
    path: '/v2/team/token-usage',
    feature: 'token usage (Unfurl bills in credits: /v2/team/credit-usage)',
  },
  {
    method: 'GET',
    path: '/v2/team/token-usage/historical',
    feature: 'token usage (Unfurl bills in credits: /v2/team/credit-usage)',
  },
  { method: 'GET', path: '/v2/team/queue-status', feature: 'queue status' },
  { method: 'GET', path: '/v2/concurrency-check', feature: 'the concurrency check' },
];

export const firecrawlV2Routes: RoutePlugin<FirecrawlDeps> = async (app, deps) => {
  const { web, fetcher, charges, accounts, usage } = deps;
  const named = (operationId: string, summary: string) => ({ tags: [FIRECRAWL_TAG], operationId, summary });

  // v1 and v2 take the same options (v1's json format with jsonOptions) and answer the same document.
  for (const [version, operationId] of [
    ['v2', 'firecrawlScrape'],
    ['v1', 'firecrawlV1Scrape'],
  ] as const) {
    app.post(
      `/${version}/scrape`,
      {
        schema: {
          ...named(operationId, `Firecrawl's ${version} scrape: one page in the formats asked for`),
          body: Type.Composite([Type.Object({ url: PageUrl }), FirecrawlScrapeOptions], {
            additionalProperties: false,
          }),
          response: { 200: Answer, ...errors(400, 401, 402, 413, 429, 502, 503) },
        },
      },
      async (request, reply) => {
        const { url, ...options } = request.body;
        fetcher.checkUrl(url, 'url');
        const priced = await paidScrape(deps, request, reply, url, scrapeRequest(toScrapeOptions(options)));
        return {
          success: true,
          data: toFirecrawlDocument(priced.document, prices.syncRequest + priced.extras),
        };
      },
    );
  }

  // v1 answers the links as strings, and names its sitemap choice ignoreSitemap / sitemapOnly.
  for (const [version, operationId] of [
    ['v2', 'firecrawlMap'],
    ['v1', 'firecrawlV1Map'],
  ] as const) {
    app.post(
      `/${version}/map`,
      {
        schema: {
          ...named(operationId, `Firecrawl's ${version} map: a site's URLs, ranked by \`search\` when given`),
          body: Type.Object(
            {
              url: PageUrl,
              search: Type.Optional(Type.String({ maxLength: 500 })),
              sitemap: Type.Optional(
                Type.Union([Type.Literal('include'), Type.Literal('skip'), Type.Literal('only')]),
              ),
              includeSubdomains: Type.Optional(Type.Boolean()),
              ignoreQueryParameters: Type.Optional(Type.Boolean()),
              limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
              ignoreSitemap: Type.Optional(Type.Boolean()),
              sitemapOnly: Type.Optional(Type.Boolean()),
              timeout: Type.Optional(Type.Integer({ minimum: 0 })),
              location: Type.Optional(Type.Unknown()),
              integration: Type.Optional(Type.String()),
              origin: Type.Optional(Type.String()),
            },
            { additionalProperties: false },
          ),
          response: { 200: Answer, ...errors(400, 401, 402, 429, 502) },
        },
      },
      async (request, reply) => {
        const b = request.body;
        fetcher.checkUrl(b.url, 'url');
        const { urls } = await paid(
          charges,
          request,
          reply,
          prices.syncRequest,
          { operation: 'map', description: 'Map' },
          () =>
            web.mapper.map(b.url, {
              limit: Math.min(b.limit ?? 5000, MAP_LIMIT),
              sitemap: b.sitemap ?? (b.sitemapOnly ? 'only' : b.ignoreSitemap ? 'skip' : 'include'),
              search: b.search || undefined,
              ignoreQueryParameters: b.ignoreQueryParameters ?? true,
              deduplicateSimilarURLs: true,
              includeSubdomains: b.includeSubdomains,
            }),
        );
        return { success: true, links: version === 'v1' ? urls : urls.map((url) => ({ url })) };
      },
    );
  }

  // v1 answers one list of results; v2 answers them by kind (web, news, images).
  for (const [version, operationId] of [
    ['v2', 'firecrawlSearch'],
    ['v1', 'firecrawlV1Search'],
  ] as const) {
    app.post(
      `/${version}/search`,
      {
        schema: {
          ...named(
            operationId,
            `Firecrawl's ${version} search through the server's SearXNG, results scraped on request`,
          ),
          body: FirecrawlSearchBody,
          response: { 200: Answer, ...errors(400, 401, 402, 429, 502, 503) },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const ask = searchAsk(body);
        // Before anything is held: a server without search answers 503, not 402.
        deps.webSearch.requireConfigured();
        // v1's SDK sends scrapeOptions with no formats when it wants no pages scraped.
        const scrape = body.scrapeOptions?.formats?.length === 0 ? undefined : body.scrapeOptions;
        const scrapeOptions = scrape ? toScrapeOptions(scrape, 'scrapeOptions.') : undefined;
        const answer = await runWebSearch(deps, request, reply, ask, scrapeOptions);
        const lists = searchData(body, answer.results, (doc) => toFirecrawlDocument(doc));
        return { success: true, data: version === 'v1' ? Object.values(lists).flat() : lists };
      },
    );
  }

  app.get(
    '/v2/team/credit-usage',
    {
      schema: {
        ...named('firecrawlCreditUsage', 'The credits left (this month: the period reported)'),
        response: { 200: Answer, ...errors(401, 429) },
      },
    },
    async (request) => {
      const { accountId } = principal(request);
      const month = thisMonth();
      const [account, used] = await Promise.all([
        accounts.getAccount(accountId),
        usage.spentSince(accountId, month.startMs),
      ]);
      return {
        success: true,
        data: {
          remainingCredits: account.credits,
          planCredits: account.credits + used,
          billingPeriodStart: month.start,
          billingPeriodEnd: month.end,
        },
      };
    },
  );

  app.get(
    '/v2/team/credit-usage/historical',
    {
      schema: {
        ...named('firecrawlCreditUsageHistorical', 'Credits used this month (one period)'),
        querystring: Type.Object({ byApiKey: Type.Optional(Type.Boolean()) }),
        response: { 200: Answer, ...errors(401, 429) },
      },
    },
    async (request) => {
      const month = thisMonth();
      const used = await usage.spentSince(principal(request).accountId, month.startMs);
      return { success: true, periods: [{ startDate: month.start, endDate: month.end, creditsUsed: used }] };
    },
  );

  for (const { method, path, feature } of UNSUPPORTED) {
    app.route({
      method,
      url: path,
      schema: { tags: [FIRECRAWL_TAG], hide: true },
      handler: async () => {
        throw new AppError('invalid_request', `Unfurl does not offer ${feature}`);
      },
    });
  }
};
