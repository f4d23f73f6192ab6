// `unfurl worker`: runs jobs (and sends their webhooks) without serving the API. With REDIS_URL it
// consumes BullMQ; without, it polls the jobs table like the embedded server does.
import pino from 'pino';
import type { Config } from '../config.js';
import { startJobProcessing } from '../jobs/processing.js';
import { createServices } from '../services.js';
import type { ProcessHooks } from './serve.js';
import { onShutdownSignal } from './signals.js';

export async function worker(config: Config, hooks: ProcessHooks = {}): Promise<void> {
  const log = pino({ level: config.logLevel, base: { role: 'worker', pid: process.pid } });
  const services = await createServices(config);
  hooks.setup?.(services);
  const processing = await startJobProcessing(services, log);
  onShutdownSignal(log, async () => {
    await processing.stop();
    await services.close();
  });
  log.info(
    { queue: services.jobs.queue.name, kinds: services.jobs.registry.all().map((k) => k.kind) },
    'unfurl worker running',
  );
}
