// Web data: scrape a page to Markdown, map a site's links (synchronous, 1 credit each), and crawl
// a site (a job; polled at GET /v1/web/crawl/{jobId}).
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { prices } from '../../billing/prices.js';
import { mcpTool } from '../../mcp/tools.js';
import {
  BATCH_SCRAPE_KIND,
  BatchScrapeBody,
  batchScrapeInput,
  batchScrapePoll,
} from '../../sources/web/batch-scrape-job.js';
import { CRAWL_KIND, CrawlBody, crawlInput } from '../../sources/web/crawl-job.js';
import { crawlPoll } from '../../sources/web/crawl-poll.js';
import type { PricedDocument } from '../../sources/web/documents.js';
import { MAX_SEARCH_LENGTH } from '../../sources/web/map-search.js';
import {
  maxScrapeExtras,
  type ScrapeOptionsInput,
  ScrapeOptionsSchema,
  type ScrapeRequest,
  scrapeRequest,
  storedScrapeRequest,
} from '../../sources/web/scrape-options.js';
import { answerBodies } from '../answer-body.js';
import type { HttpContext } from '../context.js';
import { jobRoute, pollRoute } from '../job-route.js';
import { principal } from '../plugins/auth.js';
import { paid, paidAnswer } from '../plugins/billing.js';
import { errorResponses, Nullable, StringEnum } from '../schemas/common.js';
import type { RoutePlugin } from '../typed.js';

const PageUrl = Type.String({ minLength: 1, maxLength: 4096, description: 'An http(s) URL' });

export const ScrapedPage = Type.Object(
  {
    url: Type.String({ description: 'The final URL, after redirects' }),
    content: Type.String({ description: 'The main content as Markdown' }),
    name: Nullable(Type.String({ description: 'The page title' })),
    description: Nullable(Type.String({ description: 'The meta (or og:) description' })),
    ogUrl: Nullable(Type.String({ description: 'The og:url of the page' })),
    ogImage: Nullable(Type.String({ description: 'The og:image of the page (extension)' })),
    countCharacters: Type.Integer({ description: 'Unicode code points of content' }),
    urls: Type.Array(Type.String(), { description: 'Every link on the page: absolute, deduplicated' }),
  },
  {
    $id: 'ScrapedPage',
    title: 'ScrapedPage',
    examples: [
      {
        url: 'https://example.com/',
        content: '# Example Domain\n\nThis domain is for use in illustrative examples in documents…',
        name: 'Example Domain',
        description: null,
        ogUrl: null,
        ogImage: null,
        countCharacters: 167,
        urls: ['https://www.iana.org/domains/example'],
      },
    ],
  },
);

/** POST /v1/web/scrape's body: the page and the scrape options. */
const ScrapeBody = Type.Object(
  { url: PageUrl, ...ScrapeOptionsSchema.properties },
  { additionalProperties: false },
);

type WebDeps = Pick<HttpContext, 'web' | 'fetcher' | 'jobs' | 'charges' | 'config'>;

/**
 * A scrape with formats, paid: the most it may cost held first, a cached answer charged what it cost
 * then, and what was made settled (our route and Firecrawl's both answer from it).
 */
export function paidScrape(
  { web, charges }: Pick<HttpContext, 'web' | 'charges'>,
  request: FastifyRequest,
  reply: FastifyReply,
  url: string,
  ask: ScrapeRequest,
): Promise<PricedDocument> {
  const { accountId } = principal(request);
  return paidAnswer(
    charges,
    request,
    reply,
    prices.syncRequest + maxScrapeExtras(ask),
    { operation: 'scrape', description: 'Scrape' },
    () => web.documents.peek(url, ask),
    () => web.documents.scrape(url, ask, { accountId }),
    (answer) => prices.syncRequest + answer.extras,
  );
}

export const webRoutes: RoutePlugin<WebDeps> = async (app, deps) => {
  const { web, fetcher, charges } = deps;
  /** A job whose pages need the language model is refused at once (503) on a server without one. */
  const requireModelFor = (options: ScrapeOptionsInput | undefined) => {
    if (options) web.documents.requireModelFor(storedScrapeRequest(options));
  };
  app.addSchema(ScrapedPage);
  const sendPage = answerBodies();

  app.post(
    '/v1/web/scrape',
    {
      schema: {
        tags: ['Web'],
        operationId: 'scrapeDocument',
        summary:
          'A web page in the formats asked for: Markdown, HTML, links, images, a screenshot, JSON by a schema, a summary',
        description:
          'The page is fetched (or rendered in the browser when the options need it: screenshots, actions, ' +
          'waitFor, mobile) and answered in each format asked for. 1 credit, plus the extras of the price ' +
          'table (json and summary, screenshots, PDF pages past the first 10); the most it may cost is held ' +
          'first, and a part that could not be made (a warning) is not billed.',
        body: ScrapeBody,
        response: {
          200: Type.Ref('ScrapeDocument'),
          ...errorResponses(400, 401, 402, 404, 413, 429, 502, 503),
        },
      },
    },
    async (request, reply) => {
      const { url, ...options } = request.body;
      fetcher.checkUrl(url, 'url');
      const priced = await paidScrape(deps, request, reply, url, scrapeRequest(options));
      return priced.document;
    },
  );

  app.get(
    '/v1/web/scrape',
    {
      schema: {
        tags: ['Web'],
        operationId: 'scrape',
        ...mcpTool({
          name: 'scrape',
          description:
            'A web page as Markdown (main content): the Markdown is the first text item, then a JSON item ' +
            'with its url, title (name), description and links (urls).',
          markdown: true,
        }),
        summary: 'A web page as Markdown, with its title, description and links',
        querystring: Type.Object({
          url: PageUrl,
          noLinks: Type.Boolean({ default: false, description: 'Links become plain text in content' }),
          lang: Type.Optional(
            Type.String({
              pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$',
              maxLength: 35,
              description: 'Preferred language (BCP 47, e.g. en, pt-BR), sent as Accept-Language',
            }),
          ),
          render: StringEnum(['auto', 'always', 'never'] as const, {
            default: 'auto',
            description: 'Headless browser: auto (when the page is an empty JavaScript shell), always, never',
          }),
        }),
        response: {
          200: Type.Ref('ScrapedPage'),
          ...errorResponses(400, 401, 402, 404, 413, 429, 502, 503),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      fetcher.checkUrl(q.url, 'url');
      const options = { noLinks: q.noLinks, lang: q.lang, render: q.render };
      const page = await paidAnswer(
        charges,
        request,
        reply,
        prices.syncRequest,
        { operation: 'scrape', description: 'Scrape' },
        () => web.scraper.peek(q.url, options),
        () => web.scraper.scrape(q.url, { ...options, account: principal(request).accountId }),
      );
      return sendPage(reply, page);
    },
  );

  app.get(
    '/v1/web/map',
    {
      schema: {
        tags: ['Web'],
        operationId: 'map',
        ...mcpTool({
          name: 'map',
          description: "The URLs of a site's pages (sitemaps and links), without fetching their content.",
        }),
        summary: "A site's links: the page's own and its sitemaps', normalised and deduplicated",
        querystring: Type.Object({
          url: PageUrl,
          limit: Type.Integer({
            minimum: 1,
            maximum: 10_000,
            default: 5000,
            description: 'Most URLs (1–10000)',
          }),
          sitemap: StringEnum(['include', 'skip', 'only'] as const, {
            default: 'include',
            description:
              'include: page links and sitemap URLs; skip: page links only; only: sitemap URLs only',
          }),
          search: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: MAX_SEARCH_LENGTH,
              description:
                `Rank the URLs by relevance to this query (up to ${MAX_SEARCH_LENGTH} characters): BM25 over the words of ` +
                "each URL (path and query; host at half weight) and of the start page's links to it (text, title, alt); " +
                'words are lower-cased letters and digits, a plural "s" dropped. The matches come first, best first, ' +
                'then the URLs matching nothing, in their order; with a search, sitemaps are read up to 10000 URLs before the cut at limit',
            }),
          ),
          ignoreQueryParameters: Type.Boolean({
            default: true,
            description: 'List URLs without their query, URLs differing only in it once',
          }),
          deduplicateSimilarURLs: Type.Boolean({
            default: true,
            description:
              'List www. or not, http or https, a trailing slash or not and a trailing index.html, index.htm or ' +
              'index.php or not once, in the first form found',
          }),
          includeSubdomains: Type.Optional(
            Type.Boolean({
              description:
                "Absent: URLs on every host, as found. false: only the start URL's host (www. or not); true: that host " +
                'and its subdomains',
            }),
          ),
        }),
        response: {
          200: Type.Object({ urls: Type.Array(Type.String()) }),
          ...errorResponses(400, 401, 402, 404, 429, 502),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      fetcher.checkUrl(q.url, 'url');
      return paid(charges, request, reply, prices.syncRequest, { operation: 'map', description: 'Map' }, () =>
        web.mapper.map(q.url, {
          limit: q.limit,
          sitemap: q.sitemap,
          search: q.search,
          ignoreQueryParameters: q.ignoreQueryParameters,
          deduplicateSimilarURLs: q.deduplicateSimilarURLs,
          includeSubdomains: q.includeSubdomains,
        }),
      );
    },
  );

  jobRoute(app, deps, {
    path: '/v1/web/batch/scrape',
    kind: BATCH_SCRAPE_KIND,
    tags: ['Web'],
    operationId: 'batchScrape',
    summary: 'Scrape up to 1,000 pages with the same options (a job): poll GET /v1/web/batch/scrape/{jobId}',
    description:
      'Each page is answered as POST /v1/web/scrape would answer it, in input order; invalid and repeated ' +
      'URLs are reported in their place and never fetched. Holds 1 + each page at its most; costs 1 + what ' +
      'each page that succeeded cost. A cancel (DELETE /v1/jobs/{jobId}) stops it with the pages it has.',
    body: BatchScrapeBody,
    toInput: ({ webhookUrl: _, ...body }) => {
      const input = batchScrapeInput(body, (url, param) => fetcher.checkUrl(url, param));
      requireModelFor(input.scrapeOptions);
      return input;
    },
  });

  pollRoute(app, deps, {
    path: '/v1/web/batch/scrape/:jobId',
    kinds: [BATCH_SCRAPE_KIND],
    poll: batchScrapePoll,
    operationId: 'batchScrapePoll',
    summary: 'Poll a batch scrape: results from ?skip=N, and `next` while more remain',
  });

  jobRoute(app, deps, {
    path: '/v1/web/crawl',
    kind: CRAWL_KIND,
    tags: ['Web'],
    operationId: 'crawl',
    mcp: {
      name: 'crawl_start',
      description:
        'Start crawling a site (a job): answers its jobId at once. Read the pages with crawl_status as they come.',
    },
    summary: 'Crawl a site (a job): poll GET /v1/web/crawl/{jobId}',
    body: CrawlBody,
    toInput: ({ webhookUrl: _, ...body }) => {
      const input = crawlInput(body, fetcher, { maxConcurrency: deps.config.crawl.concurrency });
      requireModelFor(input.scrapeOptions);
      return input;
    },
  });

  pollRoute(app, deps, {
    path: '/v1/web/crawl/:jobId',
    kinds: [CRAWL_KIND],
    poll: crawlPoll,
    operationId: 'crawlPoll',
    mcp: {
      name: 'crawl_status',
      description:
        "A crawl's status and pages: up to 100 pages from `skip`; `next` names the following slice while more remain.",
    },
    summary: 'Poll a crawl job: pages from ?skip=N, and `next` while more remain',
  });
};
