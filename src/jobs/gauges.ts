// The job gauges of /metrics (jobs by state, queue depth and running jobs by kind), read from the
// jobs table at scrape time so every process reports the same numbers.
import { jobsActive, jobsByState, queueDepth } from '../metrics.js';
import type { JobRecords } from './records.js';
import type { JobRegistry } from './registry.js';

const JOB_STATES = ['queued', 'active', 'completed', 'failed', 'cancelled'] as const;

export async function refreshJobGauges(records: JobRecords, registry: JobRegistry) {
  const { byState, live } = await records.countsForGauges();
  jobsByState.reset();
  for (const state of JOB_STATES) jobsByState.labels(state).set(0);
  for (const row of byState) jobsByState.labels(row.status).set(row.n);
  queueDepth.reset();
  jobsActive.reset();
  for (const { kind } of registry.all()) {
    queueDepth.labels(kind).set(0);
    jobsActive.labels(kind).set(0);
  }
  for (const row of live) {
    (row.status === 'queued' ? queueDepth : jobsActive).labels(row.kind).set(row.n);
  }
}
