// Load shedding: when this process falls behind — its event loop runs late, or more requests are in
// progress than it can finish promptly — a new request gets a fast 503 `service_unavailable` with
// Retry-After instead of joining the queue, so the requests already admitted keep a bounded latency.
// It runs before authentication: a shed request reads nothing, holds nothing and costs nothing.
// Health, readiness and metrics are never shed (an orchestrator must see the process alive).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { Counter } from 'prom-client';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import { metricsRegistry } from '../../metrics.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Answered even when the process sheds load (health, readiness, metrics). */
    neverShed?: boolean;
  }
}

const shedRequests = new Counter({
  name: 'unfurl_http_shed_total',
  help: 'Requests answered 503 by load shedding, by reason',
  labelNames: ['reason'] as const,
  registers: [metricsRegistry],
});

/** How often the event-loop delay is read (and the histogram restarted). */
const SAMPLE_MS = 100;
const RESOLUTION_MS = 10;

/** The event loop's mean delay over the last sample window, in ms. */
class EventLoopDelay {
  private readonly histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  private readonly timer: NodeJS.Timeout;
  current = 0;

  constructor() {
    this.histogram.enable();
    this.timer = setInterval(() => {
      // The histogram counts the timer's own resolution as delay; what is above it is lateness.
      const mean = this.histogram.count > 0 ? this.histogram.mean / 1e6 : 0;
      this.current = Math.max(0, mean - RESOLUTION_MS);
      this.histogram.reset();
    }, SAMPLE_MS);
    this.timer.unref();
  }

  stop() {
    clearInterval(this.timer);
    this.histogram.disable();
  }
}

export function registerLoadShedding(app: FastifyInstance, settings: Config['shedding']): void {
  const { maxEventLoopDelayMs, maxInFlight, retryAfterSeconds } = settings;
  if (maxEventLoopDelayMs === 0 && maxInFlight === 0) return;
  const delay = maxEventLoopDelayMs > 0 ? new EventLoopDelay() : null;
  app.addHook('onClose', (_app, done) => {
    delay?.stop();
    done();
  });
  let inFlight = 0;
  const overloaded = (reason: string, message: string) => {
    shedRequests.labels(reason).inc();
    return new AppError('service_unavailable', `${message}; retry after ${retryAfterSeconds} s`, null, {
      'Retry-After': String(retryAfterSeconds),
    });
  };

  // Callback-style hooks: no promise per request. The count covers every request that was admitted,
  // from here to its answer being written (or the client going away).
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.routeOptions.config?.neverShed) return done();
    if (delay && delay.current > maxEventLoopDelayMs) {
      return done(overloaded('event_loop_delay', 'The server is overloaded'));
    }
    if (maxInFlight > 0 && inFlight >= maxInFlight) {
      return done(overloaded('in_flight', 'The server has too many requests in progress'));
    }
    inFlight++;
    request.admitted = true;
    done();
  });
  const leave = (request: { admitted?: boolean }) => {
    if (request.admitted) {
      request.admitted = false;
      inFlight--;
    }
  };
  app.addHook('onResponse', (request, _reply, done) => {
    leave(request);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    leave(request);
    done();
  });
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Counted in the in-flight requests of load shedding (until its answer or abort). */
    admitted?: boolean;
  }
}
