// `unfurl serve`: the API process. In embedded mode (no REDIS_URL) it also runs the jobs. On
// SIGTERM/SIGINT it stops taking requests, finishes those in flight, drains running jobs, then
// closes the database.
import type { Config } from '../config.js';
import { type BuildOptions, buildApp } from '../http/app.js';
import { type JobProcessing, startJobProcessing } from '../jobs/processing.js';
import { createServices, type Services } from '../services.js';
import { onShutdownSignal } from './signals.js';

export interface ProcessHooks {
  /** Runs once the services exist, before anything starts (e.g. register extra job kinds). */
  setup?(services: Services): void;
  extraRoutes?: BuildOptions['extraRoutes'];
}

export async function serve(config: Config, hooks: ProcessHooks = {}): Promise<void> {
  const services = await createServices(config);
  hooks.setup?.(services);
  const app = await buildApp(services, { extraRoutes: hooks.extraRoutes });
  if (config.checkout === 'test') {
    app.log.warn(
      'UNFURL_CHECKOUT=test: purchases complete WITHOUT payment (set STRIPE_SECRET_KEY for real payments)',
    );
  }
  let processing: JobProcessing | null = null;
  if (services.jobs.queue.name === 'embedded') processing = await startJobProcessing(services, app.log);
  onShutdownSignal(app.log, async () => {
    await app.close();
    await processing?.stop();
    await services.close();
  });
  const address = await app.listen({ port: config.port, host: config.host });
  app.log.info(
    { address, database: services.store.dialect, queue: services.jobs.queue.name, jobs: Boolean(processing) },
    'unfurl listening',
  );
}
