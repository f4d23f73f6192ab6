// `unfurl serve`: the API process. In embedded mode (no REDIS_URL) it also runs the jobs. On
// SIGTERM/SIGINT it stops taking requests, finishes those in flight, drains running jobs, then
// closes the database.

import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { buildApp } from '../http/app.js';
import { type JobProcessing, startJobProcessing } from '../jobs/processing.js';
import { joinMetricsGroup } from '../metrics-group.js';
import { createServices, type Services } from '../services.js';
import { logDestination } from './log-format.js';
import { GROUP_MEMBER_ENV, portInUse } from './process-group.js';
import { onShutdownSignal } from './signals.js';

export interface ProcessHooks {
  /** Runs once the services exist, before anything starts (e.g. register extra job kinds). */
  setup?(services: Services): void;
  /** Routes added after the built-in ones (test kinds' POSTs), given the whole of the services. */
  extraRoutes?(app: FastifyInstance, services: Services): void | Promise<void>;
}

export async function serve(config: Config, hooks: ProcessHooks = {}): Promise<void> {
  const services = await createServices(config);
  hooks.setup?.(services);
  const extraRoutes = hooks.extraRoutes;
  const logStream = logDestination(config);
  const app = await buildApp(services, {
    ...(logStream && { logStream }),
    ...(extraRoutes && { extraRoutes: (a: FastifyInstance) => extraRoutes(a, services) }),
  });
  if (config.allowPrivateNetwork) app.log.warn(PRIVATE_NETWORK_WARNING);
  if (config.checkout === 'test') {
    app.log.warn(
      'UNFURL_CHECKOUT=test: purchases complete WITHOUT payment (set STRIPE_SECRET_KEY for real payments)',
    );
  }
  let processing: JobProcessing | null = null;
  if (services.jobs.queue.name === 'embedded') processing = await startJobProcessing(services, app.log);
  // A member of `serve --processes N` shares the port with its siblings (the kernel spreads new
  // connections over them) and answers /metrics for the whole group.
  const member = process.env[GROUP_MEMBER_ENV] !== undefined && process.send !== undefined;
  if (member) joinMetricsGroup();
  onShutdownSignal(app.log, async () => {
    await app.close();
    await processing?.stop();
    await services.close();
  });
  let address: string;
  try {
    address = await app.listen({
      port: config.port,
      host: config.host,
      backlog: config.listenBacklog,
      ...(member && { reusePort: true }),
    });
  } catch (err) {
    await processing?.stop();
    await services.close();
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw portInUse(config);
    throw err;
  }
  // PORT=0 (tests) listens on a port chosen now: the address says which.
  const site = config.port === 0 ? address : config.publicUrl;
  app.log.info(
    {
      address,
      dashboard: `${site}/`,
      docs: `${site}/docs`,
      database: services.store.dialect,
      queue: services.jobs.queue.name,
      jobs: Boolean(processing),
    },
    'unfurl listening',
  );
  app.log.info(`dashboard: ${site}/  ·  API docs: ${site}/docs`);
}

export const PRIVATE_NETWORK_WARNING =
  'UNFURL_ALLOW_PRIVATE_NETWORK is on: URLs may reach loopback and private addresses (this machine and its network). For tests only; never on a public server';
