// Process-wide Prometheus metrics. One registry per process (Prometheus scrapes processes), so code
// far from HTTP — the ledger, upstream clients — counts into the same place /metrics answers from.
// Counters live in the process that did the work: in the distributed deployment credits settled
// and upstream failures of jobs are counted by the worker that ran them.
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';

export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

// Request counts and latencies: src/metrics-http.ts (kept cheap on the request path).

export const httpErrors = new Counter({
  name: 'unfurl_http_errors_total',
  help: 'Error answers by error code (the `error` field of the body) and route template',
  labelNames: ['code', 'route'] as const,
  registers: [metricsRegistry],
});

export const creditsSpent = new Counter({
  name: 'unfurl_credits_spent_total',
  help: 'Credits settled (charged), by source: a synchronous request or a finished job',
  labelNames: ['source'] as const,
  registers: [metricsRegistry],
});

export const upstreamErrors = new Counter({
  name: 'unfurl_upstream_errors_total',
  help: 'Platform calls that failed after every retry (answered 502 upstream_error), by platform',
  labelNames: ['platform'] as const,
  registers: [metricsRegistry],
});

export const upstreamFailedAttempts = new Counter({
  name: 'unfurl_upstream_failed_attempts_total',
  help: 'Single platform attempts that failed or were blocked (each may be retried), by platform',
  labelNames: ['platform'] as const,
  registers: [metricsRegistry],
});

export const jobsByState = new Gauge({
  name: 'unfurl_jobs',
  // Read from the database at scrape time: every process of a group sees the same value.
  aggregator: 'first',
  help: 'Jobs in the jobs table by state (read at scrape time)',
  labelNames: ['state'] as const,
  registers: [metricsRegistry],
});

export const queueDepth = new Gauge({
  name: 'unfurl_queue_depth',
  // Read from the database at scrape time: every process of a group sees the same value.
  aggregator: 'first',
  help: 'Jobs waiting to run (status queued) by queue (read at scrape time)',
  labelNames: ['queue'] as const,
  registers: [metricsRegistry],
});

export const jobsActive = new Gauge({
  name: 'unfurl_jobs_active',
  // Read from the database at scrape time: every process of a group sees the same value.
  aggregator: 'first',
  help: 'Jobs running now by queue (read at scrape time)',
  labelNames: ['queue'] as const,
  registers: [metricsRegistry],
});

// Proxies are named by their index in UNFURL_PROXY_URLS and their host, never by the URL: it may
// hold credentials. Their states are read from the pools when /metrics is read.
export interface ProxyStateSample {
  proxy: string;
  host: string;
  platform: string;
  benched: boolean;
}

const proxyStateReaders = new Set<() => ProxyStateSample[]>();

/** Lets a proxy pool show its states in /metrics; call the answer to stop (the pool closed). */
export function showProxyStates(read: () => ProxyStateSample[]): () => void {
  proxyStateReaders.add(read);
  return () => proxyStateReaders.delete(read);
}

export const proxyBenched = new Gauge({
  name: 'unfurl_proxy_benched',
  help: 'Whether a proxy is benched for a platform after blocks or failures (1) or healthy (0), as this process knows it, for the platforms that ever failed one',
  labelNames: ['proxy', 'host', 'platform'] as const,
  registers: [metricsRegistry],
  // In a process group: benched if any process has it benched.
  aggregator: 'max',
  collect() {
    this.reset();
    for (const read of proxyStateReaders) {
      for (const s of read()) this.labels(s.proxy, s.host, s.platform).set(s.benched ? 1 : 0);
    }
  },
});

export const proxyFailures = new Counter({
  name: 'unfurl_proxy_failures_total',
  help: 'Platform answers through a proxy that were blocks (429, bot check) or failures (5xx, no answer), by proxy and platform',
  labelNames: ['proxy', 'host', 'platform', 'outcome'] as const,
  registers: [metricsRegistry],
});
