// A job runner over a test app's services that the test drives by hand (no queue consumers
// started): it claims, runs and ends the jobs the test hands it, with its own worker id.
import { JobRunner, type RunnerSettings } from '../../src/jobs/runner.js';
import type { TestApp } from './app.js';
import { quietLogger } from './quiet-logger.js';

export function handRunner(app: TestApp, settings: Partial<RunnerSettings> = {}) {
  const { store, jobs, ledger } = app.services;
  return new JobRunner(
    store.workerDb,
    jobs.records,
    jobs.registry,
    ledger,
    jobs.queue,
    { leaseMs: 60_000, backoffBaseMs: 20, resultTtlMs: 3600_000, ...settings },
    quietLogger,
  );
}
