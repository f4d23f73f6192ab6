// `unfurl serve`: the API process. Listens, and on SIGTERM/SIGINT stops taking requests, finishes
// those in flight, then closes the database.
import type { Config } from '../config.js';
import { buildApp } from '../http/app.js';
import { createServices } from '../services.js';

export async function serve(config: Config): Promise<void> {
  const services = await createServices(config);
  const app = await buildApp(services);
  if (config.checkout === 'test') {
    app.log.warn(
      'UNFURL_CHECKOUT=test: purchases complete WITHOUT payment (set STRIPE_SECRET_KEY for real payments)',
    );
  }
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    try {
      await app.close();
      await services.close();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  const address = await app.listen({ port: config.port, host: config.host });
  app.log.info(
    { address, database: services.store.dialect, redis: Boolean(services.redis) },
    'unfurl listening',
  );
}
