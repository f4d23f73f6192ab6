// Starts job processing in a process: the queue's consumers, the sweeper that recovers lost jobs
// (and gives back the credits held by synchronous requests whose process died), and the webhook
// dispatcher. `unfurl worker` runs it; so does `unfurl serve` in embedded mode.
import { REQUEST_HOLD_MAX_AGE_MS } from '../billing/ledger.js';
import type { Services } from '../services.js';
import { JobRunner } from './runner.js';
import { WebhookDispatcher } from './webhooks.js';

interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface JobProcessing {
  readonly runner: JobRunner;
  readonly webhooks: WebhookDispatcher;
  /** Stops taking jobs, waits for running ones (up to `graceMs`), then stops the rest. */
  stop(graceMs?: number): Promise<void>;
}

export async function startJobProcessing(services: Services, log: Logger): Promise<JobProcessing> {
  const { config, store, jobs } = services;
  const runner = new JobRunner(
    store.workerDb,
    jobs.records,
    jobs.registry,
    services.ledger,
    jobs.queue,
    {
      leaseMs: config.jobs.leaseMs,
      backoffBaseMs: config.jobs.backoffMs,
      resultTtlMs: config.jobResultTtlMs,
      // Two sweeps: a message sent a moment before a sweep is not re-sent by it.
      resendAfterMs: Math.max(1000, 2 * config.jobs.sweepMs),
    },
    log,
  );
  const webhooks = new WebhookDispatcher(store.db, store.dialect, services.fetcher, config.webhooks, log);
  runner.onEnded = (job) => {
    if (job.webhook_url) void webhooks.tick();
  };
  // A cancel taken by this process's API reaches its own running attempts at once.
  const unwatch = jobs.service.onCancelRequested((jobId) => runner.cancelHere(jobId));
  const sweep = async () => {
    await runner.sweep();
    const released = await services.ledger.releaseStaleRequestHolds(REQUEST_HOLD_MAX_AGE_MS);
    if (released > 0) log.warn({ released }, 'released the holds of requests that never ended');
  };
  await sweep().catch((err) => log.error({ err }, 'initial sweep failed'));
  const kinds = jobs.registry
    .all()
    .filter((k) => k.runsHere?.() ?? true)
    .map((k) => ({ kind: k.kind, concurrency: jobs.registry.concurrencyOf(k.kind) }));
  await jobs.queue.start(kinds, runner);
  webhooks.start();
  // Monitors' ticks queue their checks wherever jobs run.
  await services.monitors.startTicks();
  const sweeper = setInterval(
    () => void sweep().catch((err) => log.error({ err }, 'sweep failed')),
    config.jobs.sweepMs,
  );
  sweeper.unref();
  return {
    runner,
    webhooks,
    async stop(graceMs = 25_000) {
      clearInterval(sweeper);
      unwatch();
      await services.monitors.stopTicks();
      const force = setTimeout(() => runner.abortAll(), graceMs);
      force.unref();
      await jobs.queue.drain();
      // Endings of the last jobs may still be committing (distributed queue): wait for them too.
      await runner.settle();
      clearTimeout(force);
      runner.close();
      await webhooks.stop();
    },
  };
}
