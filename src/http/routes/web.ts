// Web data: scrape a page to Markdown, map a site's links (synchronous, 1 credit each), and crawl
// a site (a job; polled at GET /v1/web/crawl/{jobId}).
import { Type } from '@sinclair/typebox';
import { prices } from '../../billing/prices.js';
import { mcpTool } from '../../mcp/tools.js';
import { CRAWL_KIND, CrawlBody, crawlInput } from '../../sources/web/crawl-job.js';
import { crawlPoll } from '../../sources/web/crawl-poll.js';
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

type WebDeps = Pick<HttpContext, 'web' | 'fetcher' | 'jobs' | 'charges' | 'config'>;

export const webRoutes: RoutePlugin<WebDeps> = async (app, deps) => {
  const { web, fetcher, charges } = deps;
  app.addSchema(ScrapedPage);
  const sendPage = answerBodies();

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
        web.mapper.map(q.url, { limit: q.limit, sitemap: q.sitemap }),
      );
    },
  );

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
    toInput: ({ webhookUrl: _, ...body }) => crawlInput(body, fetcher),
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
