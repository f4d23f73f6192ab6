// `unfurl worker`: runs jobs (and sends their webhooks) without serving the API. With REDIS_URL it
// consumes BullMQ; without, it polls the jobs table like the embedded server does.
import pino from 'pino';
import type { Config } from '../config.js';
import { startJobProcessing } from '../jobs/processing.js';
import { createServices } from '../services.js';
import { logDestination } from './log-format.js';
import { PRIVATE_NETWORK_WARNING, type ProcessHooks } from './serve.js';
import { onShutdownSignal } from './signals.js';

export async function worker(config: Config, hooks: ProcessHooks = {}): Promise<void> {
  const stream = logDestination(config);
  const options = { level: config.logLevel, base: { role: 'worker', pid: process.pid } };
  const log = stream ? pino(options, stream) : pino(options);
  if (config.allowPrivateNetwork) log.warn(PRIVATE_NETWORK_WARNING);
  const services = await createServices(config);
  hooks.setup?.(services);
  const processing = await startJobProcessing(services, log);
  // The embedded queue polls on unref'd timers and SQLite holds no socket: without this, a worker
  // on the jobs table would exit as soon as it started.
  const alive = setInterval(() => {}, 60_000);
  onShutdownSignal(log, async () => {
    clearInterval(alive);
    await processing.stop();
    await services.close();
  });
  log.info(
    {
      queue: services.jobs.queue.name,
      kinds: services.jobs.registry
        .all()
        .filter((k) => k.runsHere?.() ?? true)
        .map((k) => k.kind),
    },
    'unfurl worker running',
  );
}
