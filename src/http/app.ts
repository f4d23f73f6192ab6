// Builds the HTTP application around a set of services. It never listens: main/ does that.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { newId } from '../ids.js';
import type { Services } from '../services.js';
import { dashboardRoutes } from './dashboard/plugin.js';
import { type RouteEntry, registerAuth } from './plugins/auth.js';
import { frameworkErrorHandler, registerErrorHandling } from './plugins/errors.js';
import { registerInputGuard } from './plugins/input-guard.js';
import { accountRoutes } from './routes/account.js';
import { authRoutes } from './routes/auth.js';
import { checkoutPageRoutes } from './routes/checkout-page.js';
import { creditRoutes } from './routes/credits.js';
import { extractRoutes } from './routes/extract.js';
import { jobRoutes } from './routes/jobs.js';
import { keyRoutes } from './routes/keys.js';
import { microblogRoutes } from './routes/microblog.js';
import { referenceRoutes } from './routes/reference.js';
import { stripeWebhookRoutes } from './routes/stripe-webhook.js';
import { registerRequestObservability, systemRoutes } from './routes/system.js';
import { videoDescribeRoutes } from './routes/video-describe.js';
import { videoOcrRoutes } from './routes/video-ocr.js';
import { vidsiteRoutes } from './routes/vidsite.js';
import { vidsiteBatchRoutes } from './routes/vidsite-batch.js';
import { vidsiteListRoutes } from './routes/vidsite-lists.js';
import { webRoutes } from './routes/web.js';
import { ErrorBody } from './schemas/common.js';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
    routeTable: RouteEntry[];
  }
}

export interface BuildOptions {
  logger?: FastifyServerOptions['logger'];
  /** Extra routes, registered after the built-in ones with the same auth and error handling (tests). */
  extraRoutes?: (app: FastifyInstance) => Promise<void> | void;
}

export const API_DESCRIPTION = `Turn a URL into data: transcripts, video, channel and post metadata, on-screen text,
AI descriptions, structured extraction, and web pages as Markdown, link maps and crawls.

Authenticate with \`Authorization: Bearer <API key>\`. Every request costs credits (see /docs/reference#prices);
failed requests cost nothing. Errors answer \`{error, message, details, documentationUrl}\`.`;

export async function buildApp(services: Services, options: BuildOptions = {}): Promise<FastifyInstance> {
  const { config } = services;
  const app = Fastify({
    logger: options.logger ?? {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'req.headers["stripe-signature"]', 'req.body.password'],
    },
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
  app.decorate('services', services);
  app.decorate('routeTable', routeTable);
  app.addSchema(ErrorBody);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  registerErrorHandling(app, config.publicUrl);
  registerAuth(app, services, routeTable);
  registerInputGuard(app);
  registerRequestObservability(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Unfurl API', version: '0.1.0', description: API_DESCRIPTION },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key (uf_…)' } },
      },
      security: [{ bearer: [] }],
      tags: [
        { name: 'Accounts', description: 'Registration, login and API keys' },
        { name: 'Credits', description: 'Balance, usage history and purchases' },
        { name: 'Jobs', description: 'Asynchronous jobs: list, status and results' },
        { name: 'Videos', description: 'Transcripts, video and channel metadata, listings, comments' },
        { name: 'Posts', description: 'Microblog post metadata' },
        { name: 'Web', description: 'Web pages as Markdown, site maps and crawls' },
        { name: 'System', description: 'Health and readiness' },
      ],
    },
    refResolver: { buildLocalReference: (json, _base, _frag, i) => (json.$id as string) ?? `def-${i}` },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
  });

  await app.register(systemRoutes);
  await app.register(referenceRoutes);
  await app.register(authRoutes);
  await app.register(keyRoutes);
  await app.register(accountRoutes);
  await app.register(creditRoutes);
  await app.register(checkoutPageRoutes);
  await app.register(stripeWebhookRoutes);
  await app.register(jobRoutes);
  await app.register(webRoutes);
  await app.register(vidsiteRoutes);
  await app.register(vidsiteListRoutes);
  await app.register(vidsiteBatchRoutes);
  await app.register(microblogRoutes);
  await app.register(videoDescribeRoutes);
  await app.register(videoOcrRoutes);
  await app.register(extractRoutes);
  await app.register(dashboardRoutes);
  if (options.extraRoutes) await app.register(async (child) => options.extraRoutes!(child));

  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  await app.ready();
  return app;
}
