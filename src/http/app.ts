// Builds the HTTP application around a set of services. It never listens: main/ does that.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import { FirecrawlErrorBody } from '../firecrawl/errors.js';
import { firecrawlV2JobRoutes } from '../firecrawl/v2-jobs.js';
import { firecrawlV2Routes } from '../firecrawl/v2-routes.js';
import { newId } from '../ids.js';
import { ScrapeDocumentSchema } from '../sources/web/document-schema.js';
import type { HttpContext } from './context.js';
import { dashboardRoutes } from './dashboard/plugin.js';
import { docsTheme } from './docs-theme.js';
import { documentRoute } from './openapi-documented.js';
import { type RouteEntry, registerAuth } from './plugins/auth.js';
import { frameworkErrorHandler, registerErrorHandling } from './plugins/errors.js';
import { registerInputGuard } from './plugins/input-guard.js';
import { LoadShedder } from './plugins/load-shedding.js';
import { registerPageHeaders } from './plugins/page-headers.js';
import { registerQueryGuard } from './plugins/query-guard.js';
import { accountRoutes } from './routes/account.js';
import { authRoutes } from './routes/auth.js';
import { checkoutPageRoutes } from './routes/checkout-page.js';
import { creditRoutes } from './routes/credits.js';
import { discoverRoutes } from './routes/discover.js';
import { extractRoutes } from './routes/extract.js';
import { fileRoutes } from './routes/files.js';
import { jobRoutes } from './routes/jobs.js';
import { keyRoutes } from './routes/keys.js';
import { mcpRoutes } from './routes/mcp.js';
import { monitorRoutes } from './routes/monitors.js';
import { referenceRoutes } from './routes/reference.js';
import { stripeWebhookRoutes } from './routes/stripe-webhook.js';
import { registerRequestObservability, systemRoutes } from './routes/system.js';
import { videoDescribeRoutes } from './routes/video-describe.js';
import { videoOcrRoutes } from './routes/video-ocr.js';
import { webRoutes } from './routes/web.js';
import { webSearchRoutes } from './routes/web-search.js';
import { xRoutes } from './routes/x.js';
import { youtubeRoutes } from './routes/youtube.js';
import { youtubeBatchRoutes } from './routes/youtube-batch.js';
import { youtubeListRoutes } from './routes/youtube-lists.js';
import { ErrorBody } from './schemas/common.js';

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: RouteEntry[];
  }
}

/** The part of the context a route plugin declares it uses: nothing else reaches it. */
function only<K extends keyof HttpContext>(ctx: HttpContext, ...keys: K[]): Pick<HttpContext, K> {
  const part = {} as Pick<HttpContext, K>;
  for (const key of keys) part[key] = ctx[key];
  return part;
}

export interface BuildOptions {
  logger?: FastifyServerOptions['logger'];
  /** Where the default logger writes (readable lines on a terminal); stdout's JSON when left out. */
  logStream?: { write(line: string): void };
  /** Extra routes, registered after the built-in ones with the same auth and error handling (tests). */
  extraRoutes?: (app: FastifyInstance) => Promise<void> | void;
}

/** A request's duration in ms, rounded to hundredths: 3.95, not 3.9518620000003466. Pure. */
export const roundedMs = (ms: number) => Math.round(ms * 100) / 100;

/**
 * One log line per request, at info once it is answered (error when the answer could not be written):
 * method, URL, status and time (ms, rounded), and through reply.log the request id and, from the
 * observability hook (routes/system.ts), the route and the account. No "incoming request" line: a
 * request's other lines carry its reqId. Failures are also logged where they are handled
 * (plugins/errors.ts), at warn or error.
 */
/** A URL as logs show it: a secret in its query (a monitor feed's `token`) is left out. */
export const loggedUrl = (url: string) => url.replace(/([?&]token=)[^&#]*/gi, '$1…');

export class RequestLog extends LogController {
  override incomingRequest() {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    if (this.isLogDisabled(request)) return;
    const line = {
      req: { method: request.method, url: loggedUrl(request.url), remoteAddress: request.ip },
      res: { statusCode: reply.statusCode },
      responseTime: roundedMs(reply.elapsedTime),
      // The error code of an error answer (read as it was sent, routes/system.ts).
      ...(request.errorCode && { error: request.errorCode }),
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

export const API_DESCRIPTION = `Turn a URL into data: transcripts, video, channel and post metadata, on-screen text,
AI descriptions, structured extraction, and web pages as Markdown, link maps and crawls.

Authenticate with \`Authorization: Bearer <API key>\` (or \`x-api-key: <API key>\`). Every request costs credits (see [the prices](/docs/reference#prices));
failed requests cost nothing. Errors answer \`{error, message, details, documentationUrl}\`.

[Errors, prices and limits](/docs/reference) · [Dashboard](/) (keys, credits, jobs, a playground) · [openapi.json](/openapi.json)`;

export async function buildApp(ctx: HttpContext, options: BuildOptions = {}): Promise<FastifyInstance> {
  const { config } = ctx;
  const shedder = new LoadShedder(config.shedding, config.publicUrl);
  const app = Fastify({
    serverFactory: shedder.serverFactory,
    logger: options.logger ?? {
      level: config.logLevel,
      redact: [
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'req.headers["stripe-signature"]',
        'req.body.password',
      ],
      ...(options.logStream && { stream: options.logStream }),
    },
    // One line per request (RequestLog), instead of Fastify's two.
    logController: new RequestLog(),
    bodyLimit: config.bodyLimitBytes,
    genReqId: () => newId('req'),
    requestIdHeader: false,
    trustProxy:
      config.trustProxyHops > 0 ? (_address: string, hop: number) => hop < config.trustProxyHops : false,
    return503OnClosing: true,
    // A HEAD of a paid GET would run (and bill) the whole request for nothing.
    exposeHeadRoutes: false,
    frameworkErrors: frameworkErrorHandler(config.publicUrl),
    ajv: {
      customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: false },
    },
  });

  const routeTable: RouteEntry[] = [];
  app.decorate('routeTable', routeTable);
  app.addSchema(ErrorBody);
  // A scrape's document: POST /v1/web/scrape answers one, a search with scrapeOptions one per result.
  app.addSchema(ScrapeDocumentSchema);
  app.addSchema(FirecrawlErrorBody);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
  shedder.register(app);
  registerErrorHandling(app, config.publicUrl, routeTable);
  registerAuth(
    app,
    only(ctx, 'authenticator', 'rateLimiter', 'accountRateLimiter', 'authRateLimiter'),
    routeTable,
  );
  registerInputGuard(app);
  registerQueryGuard(app);
  registerPageHeaders(app);
  registerRequestObservability(app);
  (await import('./supadata-shape.js')).registerSupadataShape(app); // answers in the shapes Supadata's SDKs read

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Unfurl API', version: '0.1.0', description: API_DESCRIPTION },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An API key (uf_…): the documented way' },
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'x-api-key',
            description: 'The same API key in x-api-key, as the Supadata SDKs send it',
          },
        },
      },
      security: [{ bearer: [] }, { apiKey: [] }],
      // In the order a user meets them: what the API is for first (pages, transcripts and videos, posts),
      // then the jobs the longer operations answer, then the account's plumbing; Swagger UI keeps it.
      tags: [
        { name: 'Web', description: 'Web pages as Markdown, site maps and crawls' },
        { name: 'Videos', description: 'Transcripts, video and channel metadata, listings, comments' },
        { name: 'Posts', description: 'Microblog post metadata' },
        { name: 'Jobs', description: 'Asynchronous jobs: list, status and results' },
        { name: 'Credits', description: 'Balance, usage history and purchases' },
        { name: 'Accounts', description: 'Registration, login and API keys' },
        { name: 'System', description: 'Health and readiness' },
      ],
    },
    transform: documentRoute,
    refResolver: { buildLocalReference: (json, _base, _frag, i) => (json.$id as string) ?? `def-${i}` },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
    ...docsTheme(),
  });

  const jobRouteDeps = ['jobs', 'fetcher', 'charges', 'config'] as const;
  await app.register(systemRoutes, only(ctx, 'jobs', 'readiness'));
  await app.register(referenceRoutes, only(ctx, 'jobs'));
  await app.register(authRoutes, only(ctx, 'accounts', 'authenticator'));
  await app.register(keyRoutes, only(ctx, 'accounts', 'authenticator'));
  await app.register(accountRoutes, only(ctx, 'accounts', 'usage'));
  await app.register(creditRoutes, only(ctx, 'checkouts'));
  await app.register(checkoutPageRoutes, only(ctx, 'checkouts', 'config'));
  await app.register(stripeWebhookRoutes, only(ctx, 'stripeEvents'));
  await app.register(jobRoutes, only(ctx, 'jobs'));
  await app.register(fileRoutes, only(ctx, 'files'));
  await app.register(webRoutes, only(ctx, 'web', ...jobRouteDeps));
  await app.register(webSearchRoutes, only(ctx, 'webSearch', 'web', 'charges'));
  await app.register(
    youtubeRoutes,
    only(ctx, 'youtube', 'platforms', 'transcripts', 'translations', ...jobRouteDeps),
  );
  await app.register(youtubeListRoutes, only(ctx, 'youtube', 'charges'));
  await app.register(discoverRoutes, only(ctx, 'platforms', 'youtube', 'charges'));
  await app.register(youtubeBatchRoutes, only(ctx, ...jobRouteDeps));
  await app.register(xRoutes, only(ctx, 'platforms', 'charges'));
  await app.register(videoDescribeRoutes, only(ctx, 'platforms', ...jobRouteDeps));
  await app.register(videoOcrRoutes, only(ctx, 'platforms', ...jobRouteDeps));
  await app.register(extractRoutes, only(ctx, 'platforms', ...jobRouteDeps));
  await app.register(monitorRoutes, only(ctx, 'monitors', 'charges', 'config'));
  await app.register(firecrawlV2JobRoutes, only(ctx, 'web', ...jobRouteDeps));
  await app.register(
    firecrawlV2Routes,
    only(ctx, 'web', 'fetcher', 'charges', 'accounts', 'usage', 'jobs', 'config', 'webSearch'),
  );
  await app.register(dashboardRoutes);
  await app.register(mcpRoutes, only(ctx, 'rateLimiter', 'accountRateLimiter'));
  if (options.extraRoutes) await app.register(async (child) => options.extraRoutes!(child));

  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  await app.ready();
  return app;
}
