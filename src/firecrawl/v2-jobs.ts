// Firecrawl's v2 crawl and batch scrape over our crawl and batch_scrape jobs: start, status (paged
// with `next`), cancel, errors, and the active crawls.
import { Type } from '@sinclair/typebox';
import { invalid } from '../errors.js';
import type { HttpContext } from '../http/context.js';
import { principal } from '../http/plugins/auth.js';
import type { RoutePlugin } from '../http/typed.js';
import { BATCH_SCRAPE_KIND, BatchScrapeBody, batchScrapeInput } from '../sources/web/batch-scrape-job.js';
import { CRAWL_KIND, CrawlBody, crawlInput } from '../sources/web/crawl-job.js';
import { storedScrapeRequest } from '../sources/web/scrape-options.js';
import { checked } from './checked.js';
import { FirecrawlScrapeOptions, type FirecrawlScrapeOptionsInput, toScrapeOptions } from './document.js';
import { firecrawlErrors as errors } from './errors.js';
import { extractScrapeOptions, FirecrawlExtractBody } from './extract.js';
import { cancelJob, extractStatus, type FirecrawlJobDeps, jobErrors, jobStatus, submitJob } from './jobs.js';
import { FIRECRAWL_TAG } from './paths.js';

export type FirecrawlJobRouteDeps = FirecrawlJobDeps & Pick<HttpContext, 'web'>;

const Answer = Type.Object({ success: Type.Boolean() }, { additionalProperties: true });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const SkipQuery = Type.Object({ skip: Type.Optional(Type.Integer({ minimum: 0 })) });
const Webhook = Type.Union([
  Type.String({ maxLength: 2048 }),
  Type.Object({ url: Type.String({ maxLength: 2048 }) }),
]);
const Ignored = { integration: Type.Optional(Type.String()), origin: Type.Optional(Type.String()) };

const FirecrawlCrawlBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 4096 }),
    limit: Type.Optional(Type.Integer({ minimum: 1 })),
    maxDiscoveryDepth: Type.Optional(Type.Integer({ minimum: 0 })),
    // v1's names: maxDepth, ignoreSitemap, allowBackwardLinks (crawlEntireDomain).
    maxDepth: Type.Optional(Type.Integer({ minimum: 0 })),
    ignoreSitemap: Type.Optional(Type.Boolean()),
    allowBackwardLinks: Type.Optional(Type.Boolean()),
    includePaths: Type.Optional(Type.Array(Type.String())),
    excludePaths: Type.Optional(Type.Array(Type.String())),
    sitemap: Type.Optional(Type.Union([Type.Literal('include'), Type.Literal('skip'), Type.Literal('only')])),
    ignoreQueryParameters: Type.Optional(Type.Boolean()),
    deduplicateSimilarURLs: Type.Optional(Type.Boolean()),
    crawlEntireDomain: Type.Optional(Type.Boolean()),
    allowExternalLinks: Type.Optional(Type.Boolean()),
    allowSubdomains: Type.Optional(Type.Boolean()),
    delay: Type.Optional(Type.Number({ minimum: 0 })),
    maxConcurrency: Type.Optional(Type.Integer({ minimum: 1 })),
    regexOnFullURL: Type.Optional(Type.Boolean()),
    prompt: Type.Optional(Type.String()),
    robotsUserAgent: Type.Optional(Type.String()),
    webhook: Type.Optional(Webhook),
    scrapeOptions: Type.Optional(FirecrawlScrapeOptions),
    zeroDataRetention: Type.Optional(Type.Boolean()),
    ...Ignored,
  },
  { additionalProperties: false },
);

const FirecrawlBatchBody = Type.Composite(
  [
    Type.Object({
      urls: Type.Array(Type.String(), { minItems: 1 }),
      webhook: Type.Optional(Webhook),
      ignoreInvalidURLs: Type.Optional(Type.Boolean()),
      maxConcurrency: Type.Optional(Type.Integer({ minimum: 1 })),
      appendToId: Type.Optional(Type.String()),
    }),
    FirecrawlScrapeOptions,
  ],
  { additionalProperties: false },
);

/** Our scrape options for a Firecrawl job: Markdown unless it asks for other formats. */
const jobScrapeOptions = (options: FirecrawlScrapeOptionsInput | undefined, at: string) =>
  toScrapeOptions(options ?? {}, at);

export const firecrawlV2JobRoutes: RoutePlugin<FirecrawlJobRouteDeps> = async (app, deps) => {
  const named = (operationId: string, summary: string) => ({ tags: [FIRECRAWL_TAG], operationId, summary });
  // v1's client sends `content-type: application/json` with a DELETE that has no body: no body it is.
  app.addHook('onRequest', async (request) => {
    if (
      request.method === 'DELETE' &&
      !request.headers['content-length'] &&
      !request.headers['transfer-encoding']
    ) {
      delete request.headers['content-type'];
    }
  });
  const batchKinds = [BATCH_SCRAPE_KIND];

  app.get(
    '/v2/crawl/active',
    {
      schema: {
        ...named('firecrawlActiveCrawls', "The caller's crawls that are queued or running"),
        response: { 200: Answer, ...errors(401, 429) },
      },
    },
    async (request) => {
      const { accountId } = principal(request);
      const crawls = new Map<string, { id: string; teamId: string; url: string; options: null }>();
      // Queued first, then active: the order jobs move in, so a crawl that starts between the two
      // reads is in the second (read the other way round, it would be in neither).
      for (const status of ['queued', 'active'] as const) {
        const { rows } = await deps.jobs.service.list(accountId, { status, limit: 100, offset: 0 });
        for (const job of rows) {
          if (job.kind !== CRAWL_KIND) continue;
          crawls.set(job.id, {
            id: job.id,
            teamId: accountId,
            url: String(job.input_url ?? ''),
            options: null,
          });
        }
      }
      return { success: true, crawls: [...crawls.values()] };
    },
  );

  app.post(
    '/v2/extract',
    {
      schema: {
        ...named(
          'firecrawlExtract',
          "Firecrawl's extract: JSON from pages by a prompt and/or a schema (a job)",
        ),
        body: FirecrawlExtractBody,
        response: { 200: Answer, ...errors(400, 401, 402, 429, 503) },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const body = checked(BatchScrapeBody, { urls: b.urls, scrapeOptions: extractScrapeOptions(b) });
      const input = batchScrapeInput(body, (url, param) => deps.fetcher.checkUrl(url, param));
      const skipped = Object.keys(input.skipped);
      if (skipped.length > 0 && b.ignoreInvalidURLs === false) {
        throw invalid(`urls[${skipped[0]}]`, input.skipped[skipped[0]!]!);
      }
      deps.web.documents.requireModelFor(storedScrapeRequest(input.scrapeOptions ?? {}));
      const id = await submitJob(deps, request, reply, BATCH_SCRAPE_KIND, input, b.webhook);
      return { success: true, id, invalidURLs: skipped.map((i) => b.urls[Number(i)]!) };
    },
  );

  app.get(
    '/v2/extract/:id',
    {
      schema: {
        ...named('firecrawlExtractStatus', "An extract's status and, once done, its data"),
        params: IdParams,
        response: { 200: Answer, ...errors(401, 404, 429) },
      },
    },
    async (request) => extractStatus(deps, request, batchKinds, request.params.id),
  );

  // v1 and v2 share these routes' shapes; a v1 status leaves `next` out when there is no more (its
  // SDK follows `next` for as long as the key is there).
  for (const version of ['v2', 'v1'] as const) {
    const V = version === 'v1' ? 'V1' : '';
    // v1's client waits for a batch scrape at /v1/crawl/{id} too (its server kept both kinds there).
    const crawlKinds = version === 'v1' ? [CRAWL_KIND, BATCH_SCRAPE_KIND] : [CRAWL_KIND];
    app.post(
      `/${version}/crawl`,
      {
        schema: {
          ...named(`firecrawl${V}Crawl`, "Firecrawl's crawl: a crawl job over our crawler"),
          body: FirecrawlCrawlBody,
          response: { 200: Answer, ...errors(400, 401, 402, 429) },
        },
      },
      async (request, reply) => {
        const b = request.body;
        if (b.prompt)
          throw invalid('prompt', 'crawl options from a prompt are not offered by Unfurl: set them');
        if (b.allowExternalLinks)
          throw invalid('allowExternalLinks', 'Unfurl crawls one site (allowSubdomains widens it)');
        if (b.regexOnFullURL)
          throw invalid('regexOnFullURL', 'Unfurl matches includePaths/excludePaths on the path');
        const body = checked(CrawlBody, {
          url: b.url,
          ...(b.limit !== undefined && { limit: b.limit }),
          ...((b.maxDiscoveryDepth ?? b.maxDepth) !== undefined && {
            maxDepth: b.maxDiscoveryDepth ?? b.maxDepth,
          }),
          ...(b.includePaths && { includePaths: b.includePaths }),
          ...(b.excludePaths && { excludePaths: b.excludePaths }),
          // Firecrawl reads the sitemap unless told not to.
          sitemap: b.sitemap ?? (b.ignoreSitemap ? 'skip' : 'include'),
          ...(b.ignoreQueryParameters !== undefined && { ignoreQueryParameters: b.ignoreQueryParameters }),
          ...(b.deduplicateSimilarURLs !== undefined && { deduplicateSimilarURLs: b.deduplicateSimilarURLs }),
          ...((b.crawlEntireDomain ?? b.allowBackwardLinks) !== undefined && {
            crawlEntireDomain: b.crawlEntireDomain ?? b.allowBackwardLinks,
          }),
          ...(b.allowSubdomains !== undefined && { allowSubdomains: b.allowSubdomains }),
          ...(b.delay !== undefined && { delay: b.delay }),
          ...(b.maxConcurrency !== undefined && { maxConcurrency: b.maxConcurrency }),
          scrapeOptions: jobScrapeOptions(b.scrapeOptions, 'scrapeOptions.'),
        });
        const input = crawlInput(body, deps.fetcher, { maxConcurrency: deps.config.crawl.concurrency });
        deps.web.documents.requireModelFor(storedScrapeRequest(input.scrapeOptions ?? {}));
        const id = await submitJob(deps, request, reply, CRAWL_KIND, input, b.webhook);
        return { success: true, id, url: `${deps.config.publicUrl}/${version}/crawl/${id}` };
      },
    );

    app.get(
      `/${version}/crawl/:id`,
      {
        schema: {
          ...named(
            'firecrawlCrawlStatus',
            "A crawl's status and pages from ?skip=, with `next` while more remain",
          ),
          params: IdParams,
          querystring: SkipQuery,
          response: { 200: Answer, ...errors(401, 404, 429) },
        },
      },
      async (request) =>
        jobStatus(
          deps,
          request,
          crawlKinds,
          request.params.id,
          request.query.skip ?? 0,
          `/${version}/crawl/${request.params.id}`,
        ),
    );

    app.delete(
      `/${version}/crawl/:id`,
      {
        schema: {
          ...named(`firecrawl${V}CrawlCancel`, 'Cancel a crawl (the pages it has are kept, billed)'),
          params: IdParams,
          response: { 200: Answer, ...errors(401, 404, 409, 429) },
        },
      },
      async (request) => cancelJob(deps, request, crawlKinds, request.params.id),
    );

    app.get(
      `/${version}/crawl/:id/errors`,
      {
        schema: {
          ...named(`firecrawl${V}CrawlErrors`, "A crawl's pages that failed"),
          params: IdParams,
          response: { 200: Answer, ...errors(401, 404, 429) },
        },
      },
      async (request) => jobErrors(deps, request, crawlKinds, request.params.id, false),
    );

    // v1's SDK asks for a crawl's errors with DELETE.
    if (version === 'v1') {
      app.delete(
        '/v1/crawl/:id/errors',
        {
          schema: {
            ...named(
              'firecrawlV1CrawlErrorsByDelete',
              "A crawl's pages that failed (v1's client asks with DELETE)",
            ),
            params: IdParams,
            response: { 200: Answer, ...errors(401, 404, 429) },
          },
        },
        async (request) => jobErrors(deps, request, crawlKinds, request.params.id, false),
      );
    }

    app.post(
      `/${version}/batch/scrape`,
      {
        schema: {
          ...named(`firecrawl${V}BatchScrape`, "Firecrawl's batch scrape: a batch_scrape job"),
          body: FirecrawlBatchBody,
          response: { 200: Answer, ...errors(400, 401, 402, 429) },
        },
      },
      async (request, reply) => {
        const { urls, webhook, ignoreInvalidURLs, maxConcurrency: _, appendToId, ...options } = request.body;
        if (appendToId)
          throw invalid('appendToId', 'adding pages to a running batch is not offered by Unfurl');
        const body = checked(BatchScrapeBody, { urls, scrapeOptions: jobScrapeOptions(options, '') });
        const input = batchScrapeInput(body, (url, param) => deps.fetcher.checkUrl(url, param));
        deps.web.documents.requireModelFor(storedScrapeRequest(input.scrapeOptions ?? {}));
        const invalidURLs = Object.keys(input.skipped).map((i) => urls[Number(i)]!);
        if (invalidURLs.length > 0 && ignoreInvalidURLs === false) {
          throw invalid(
            `urls[${Object.keys(input.skipped)[0]}]`,
            input.skipped[Object.keys(input.skipped)[0]!]!,
          );
        }
        const id = await submitJob(deps, request, reply, BATCH_SCRAPE_KIND, input, webhook);
        return {
          success: true,
          id,
          url: `${deps.config.publicUrl}/${version}/batch/scrape/${id}`,
          invalidURLs,
        };
      },
    );

    app.get(
      `/${version}/batch/scrape/:id`,
      {
        schema: {
          ...named(`firecrawl${V}BatchScrapeStatus`, "A batch scrape's status and documents from ?skip="),
          params: IdParams,
          querystring: SkipQuery,
          response: { 200: Answer, ...errors(401, 404, 429) },
        },
      },
      async (request) =>
        jobStatus(
          deps,
          request,
          batchKinds,
          request.params.id,
          request.query.skip ?? 0,
          `/${version}/batch/scrape/${request.params.id}`,
        ),
    );

    app.delete(
      `/${version}/batch/scrape/:id`,
      {
        schema: {
          ...named(
            `firecrawl${V}BatchScrapeCancel`,
            'Cancel a batch scrape (the pages it has are kept, billed)',
          ),
          params: IdParams,
          response: { 200: Answer, ...errors(401, 404, 409, 429) },
        },
      },
      async (request) => cancelJob(deps, request, batchKinds, request.params.id),
    );

    app.get(
      `/${version}/batch/scrape/:id/errors`,
      {
        schema: {
          ...named(
            `firecrawl${V}BatchScrapeErrors`,
            "A batch scrape's pages that failed, and the URLs it refused",
          ),
          params: IdParams,
          response: { 200: Answer, ...errors(401, 404, 429) },
        },
      },
      async (request) => jobErrors(deps, request, batchKinds, request.params.id, true),
    );
  }
};
