// Request count and latency per (method, route, status), kept in plain counters on the request path
// and turned into Prometheus series only when /metrics is scraped. prom-client's labelled metrics
// hash their label values on every call (≈ 5 µs a request for the two of them); this costs a map
// lookup and a few additions.
import type { Metric } from 'prom-client';
import { metricsRegistry } from './metrics.js';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

interface Series {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last slot is above the largest bound. */
  perBucket: number[];
}

const series = new Map<string, Series>();

export function observeRequest(method: string, route: string, status: number, seconds: number): void {
  const key = `${method}\u0000${route}\u0000${status}`;
  let s = series.get(key);
  if (!s) {
    s = {
      labels: { method, route, status: String(status) },
      count: 0,
      sum: 0,
      perBucket: new Array(BUCKETS.length + 1).fill(0),
    };
    series.set(key, s);
  }
  s.count++;
  s.sum += seconds;
  let i = 0;
  while (i < BUCKETS.length && seconds > BUCKETS[i]!) i++;
  s.perBucket[i]!++;
}

type Value = { value: number; labels: Record<string, string | number>; metricName?: string };

/** A metric prom-client's registry can print: it only calls get() (and reads name/type). */
function register(name: string, help: string, type: 'counter' | 'histogram', values: () => Value[]) {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
    reset: () => series.clear(),
  };
  metricsRegistry.registerMetric(metric as unknown as Metric);
}

register(
  'unfurl_http_requests_total',
  'HTTP requests answered, by method, route template and status',
  'counter',
  () => [...series.values()].map((s) => ({ value: s.count, labels: s.labels })),
);

register(
  'unfurl_http_request_duration_seconds',
  'HTTP request duration by method, route template and status',
  'histogram',
  () => {
    const out: Value[] = [];
    for (const s of series.values()) {
      let cumulative = 0;
      BUCKETS.forEach((le, i) => {
        cumulative += s.perBucket[i]!;
        out.push({
          metricName: 'unfurl_http_request_duration_seconds_bucket',
          labels: { ...s.labels, le },
          value: cumulative,
        });
      });
      out.push({
        metricName: 'unfurl_http_request_duration_seconds_bucket',
        labels: { ...s.labels, le: '+Inf' },
        value: s.count,
      });
      out.push({ metricName: 'unfurl_http_request_duration_seconds_sum', labels: s.labels, value: s.sum });
      out.push({
        metricName: 'unfurl_http_request_duration_seconds_count',
        labels: s.labels,
        value: s.count,
      });
    }
    return out;
  },
);
