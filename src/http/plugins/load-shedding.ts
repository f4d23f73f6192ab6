// Load shedding: when this process falls behind — its event loop runs late, or more requests are in
// progress than it can finish promptly — a new request gets a fast 503 `service_unavailable` with
// Retry-After instead of joining the queue, so the requests already admitted keep a bounded latency.
//
// The decision is taken in the HTTP server's own request listener, before Fastify sees the request:
// under overload the refusals are most of the traffic, and a refusal that went through routing, the
// hooks, the error handler and a log line cost about as much CPU as the cheap answers it protects,
// so shedding itself kept the process saturated. A shed request reads nothing, holds nothing and
// costs nothing. Health, readiness and metrics (routes marked `neverShed`) are always let through.
// `app.inject` (tests) does not pass through the server, so it is never shed.
//
// How late the loop runs is read at each request, not only by a timer: with thousands of sockets
// readable, libuv stays in one poll phase for seconds (up to 48 batches of 1,024 events) and runs
// no timer meanwhile, so a monitor that samples from a timer (monitorEventLoopDelay included) sees
// nothing until the flood is over. A request read while the loop's tick is overdue is itself the
// sign: it waited in a socket buffer for about that long.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify';
import { Counter } from 'prom-client';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { metricsRegistry } from '../../metrics.js';
import { errorBody } from './errors.js';

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

/** The loop's tick: how often it is expected to get round to its timers. */
const TICK_MS = 50;
/**
 * The share of new requests admitted is cut by this factor after every tick window in which the loop
 * ran late, and raised by ADMIT_STEP after every window on time (back to all in half a second).
 * Admitting everything again at once overshoots: a window that takes twice the capacity leaves a
 * backlog that the next one drains while it refuses.
 */
const ADMIT_CUT = 0.5;
const ADMIT_STEP = 0.1;
/** Below this the share is 0: every new request is refused until a window runs on time. */
const ADMIT_FLOOR = 0.02;

/** How late the event loop runs: the time past its tick's due moment, now and worst per window. */
class LoopLateness {
  private readonly timer: NodeJS.Timeout;
  /** null until the first tick: the start-up's own synchronous work is not lateness. */
  private lastTick: number | null = null;
  private worstInWindow = 0;

  constructor(onWindow: (worstLateMs: number) => void) {
    this.timer = setInterval(() => {
      const late = this.now();
      this.lastTick = performance.now();
      const worst = Math.max(late, this.worstInWindow);
      this.worstInWindow = 0;
      onWindow(worst);
    }, TICK_MS);
    this.timer.unref();
  }

  /** Milliseconds the loop is behind right now (0 while its tick is not yet due). */
  now(): number {
    if (this.lastTick === null) return 0;
    return Math.max(0, performance.now() - this.lastTick - TICK_MS);
  }

  /** `now()`, remembered for the window's verdict. */
  observe(): number {
    const late = this.now();
    if (late > this.worstInWindow) this.worstInWindow = late;
    return late;
  }

  stop() {
    clearInterval(this.timer);
  }
}

type Reason = 'event_loop_delay' | 'in_flight';

const MESSAGES: Record<Reason, string> = {
  event_loop_delay: 'The server is overloaded',
  in_flight: 'The server has too many requests in progress',
};

function pathOf(url: string | undefined): string {
  if (!url) return '';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

export class LoadShedder {
  private readonly lateness: LoopLateness | null;
  private readonly neverShedPaths = new Set<string>();
  /** The whole refusal body, built once per reason (the error handler's body). */
  private readonly bodies: Record<Reason, Buffer>;
  /** The share of new requests admitted while the loop keeps time (1: all). */
  private admitShare = 1;
  private inFlight = 0;
  /** Refusals in this tick window, and in the episode (windows in a row with refusals): logged per episode. */
  private shedInWindow = 0;
  private shedInEpisode = 0;
  private log: FastifyBaseLogger | null = null;

  constructor(
    private readonly settings: Config['shedding'],
    docsBase: string,
  ) {
    this.lateness = this.enabled ? new LoopLateness(this.windowEnded) : null;
    const body = (reason: Reason) =>
      Buffer.from(
        JSON.stringify(
          errorBody(
            docsBase,
            new AppError(
              'service_unavailable',
              `${MESSAGES[reason]}; retry after ${settings.retryAfterSeconds} s`,
            ),
          ),
        ),
      );
    this.bodies = { event_loop_delay: body('event_loop_delay'), in_flight: body('in_flight') };
  }

  get enabled(): boolean {
    return this.settings.maxEventLoopDelayMs > 0 || this.settings.maxInFlight > 0;
  }

  /** Fastify's `serverFactory`: the HTTP server, its listener deciding before the app runs. */
  readonly serverFactory = (handler: http.RequestListener, options: FastifyServerOptions): http.Server => {
    const server = http.createServer(this.enabled ? this.listener(handler) : handler);
    // What Fastify sets on a server it makes itself.
    server.keepAliveTimeout = options.keepAliveTimeout ?? 72_000;
    server.requestTimeout = options.requestTimeout ?? 0;
    server.setTimeout(options.connectionTimeout ?? 0);
    if ((options.maxRequestsPerSocket ?? 0) > 0) server.maxRequestsPerSocket = options.maxRequestsPerSocket!;
    return server;
  };

  /** Learns the never-shed routes and the logger; stops the clock with the app. */
  register(app: FastifyInstance): void {
    this.log = app.log;
    app.addHook('onRoute', (route) => {
      if (route.config?.neverShed) this.neverShedPaths.add(route.url);
    });
    app.addHook('onClose', (_app, done) => {
      this.lateness?.stop();
      done();
    });
  }

  private readonly windowEnded = (worstLateMs: number) => {
    const { maxEventLoopDelayMs } = this.settings;
    if (maxEventLoopDelayMs > 0 && worstLateMs > maxEventLoopDelayMs) {
      const cut = this.admitShare * ADMIT_CUT;
      this.admitShare = cut < ADMIT_FLOOR ? 0 : cut;
    } else if (this.admitShare < 1) this.admitShare = Math.min(1, this.admitShare + ADMIT_STEP);
    if (this.shedInWindow > 0 && this.shedInEpisode === 0) {
      this.log?.warn(
        { eventLoopLateMs: Math.round(worstLateMs), admitShare: this.admitShare, inFlight: this.inFlight },
        'load shedding: refusing new requests',
      );
    } else if (this.shedInWindow === 0 && this.shedInEpisode > 0) {
      this.log?.warn({ shed: this.shedInEpisode }, 'load shedding ended');
      this.shedInEpisode = 0;
    }
    this.shedInEpisode += this.shedInWindow;
    this.shedInWindow = 0;
  };

  private readonly leave = () => {
    this.inFlight--;
  };

  private verdict(): Reason | null {
    if (this.lateness && this.settings.maxEventLoopDelayMs > 0) {
      const late = this.lateness.observe();
      if (late > this.settings.maxEventLoopDelayMs) return 'event_loop_delay';
      if (this.admitShare < 1 && Math.random() >= this.admitShare) return 'event_loop_delay';
    }
    const { maxInFlight } = this.settings;
    if (maxInFlight > 0 && this.inFlight >= maxInFlight) return 'in_flight';
    return null;
  }

  private listener(handler: http.RequestListener): http.RequestListener {
    return (req, res) => {
      if (this.neverShedPaths.has(pathOf(req.url))) return handler(req, res);
      const reason = this.verdict();
      if (reason) return this.refuse(res, reason);
      this.inFlight++;
      // 'close' follows the last byte of the answer, or the client going away first.
      res.once('close', this.leave);
      handler(req, res);
    };
  }

  private refuse(res: http.ServerResponse, reason: Reason) {
    this.shedInWindow++;
    shedRequests.labels(reason).inc();
    const body = this.bodies[reason];
    res.writeHead(503, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': body.length,
      'retry-after': String(this.settings.retryAfterSeconds),
      'x-request-id': newId('req'),
    });
    res.end(body);
  }
}
