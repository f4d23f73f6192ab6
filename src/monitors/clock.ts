// Where ticks come from. Embedded: the schedule is `next_check_at` in the database, read by one
// loop in the process; a tick missed while the process was down runs once when it starts (the next
// tick is counted from now, not from the missed one). Distributed: BullMQ's job schedulers, one per
// monitor, so each tick is one message however many workers run; a message delivered twice (a
// worker killed while it held it) queues one check, by the tick's idempotency key.
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { MonitorRow } from '../store/schema.js';
import type { MonitorRecords } from './records.js';
import { nextTick, storedSchedule } from './schedule.js';
import type { MonitorScheduler } from './service.js';

export interface Ticks {
  tick(monitorId: string, tick: string): Promise<void>;
}

interface Log {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Ticks taken per pass of the embedded clock; the rest wait for the next pass. */
const TICKS_PER_PASS = 500;
/** Ticks taken between two turns of the event loop. */
const YIELD_EVERY = 16;
/** Ticks queued at once. */
const TICK_CONCURRENCY = 8;

export class EmbeddedClock implements MonitorScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly records: MonitorRecords,
    private readonly pollMs: number,
    private readonly log: Log = console,
  ) {}

  // The row's next_check_at is the schedule: nothing to keep elsewhere.
  async schedule(): Promise<void> {}
  async unschedule(): Promise<void> {}

  start(ticks: Ticks): void {
    const pass = () => {
      if (this.running) return;
      this.running = this.pass(ticks)
        .then(() => {})
        .catch((err) => this.log.error({ err }, 'monitor clock pass failed'))
        .finally(() => {
          this.running = null;
        });
    };
    this.timer = setInterval(pass, this.pollMs);
    this.timer.unref();
    pass();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Ticks every monitor that is due: its check queued first, then its next tick set. */
  async pass(ticks: Ticks, now = Date.now()): Promise<number> {
    const due = await this.records.due(now, TICKS_PER_PASS);
    let next = 0;
    const worker = async () => {
      while (next < due.length) {
        const m = due[next++]!;
        const at = Number(m.next_check_at);
        try {
          await ticks.tick(m.id, String(at));
          // Counted from now: missed ticks collapse into the one just taken.
          await this.records.advance(m.id, at, nextTick(storedSchedule(m, now), now, Number(m.anchor_at)));
        } catch (err) {
          this.log.warn({ err, monitor: m.id }, 'monitor tick failed; it is taken again on the next pass');
        }
        // SQLite answers synchronously: without a turn of the event loop now and then, a pass of
        // hundreds of ticks would hold every request back (and trip load shedding).
        if (next % YIELD_EVERY === 0) await new Promise((r) => setImmediate(r));
      }
    };
    await Promise.all(Array.from({ length: Math.min(TICK_CONCURRENCY, due.length) }, worker));
    return due.length;
  }
}

export const MONITOR_TICKS_QUEUE = 'monitor-ticks';

export class BullMqClock implements MonitorScheduler {
  private readonly producer: Redis;
  private readonly queue: Queue;
  private worker: Worker | null = null;
  private workerConnection: Redis | null = null;

  constructor(
    private readonly redisUrl: string,
    private readonly prefix: string,
    private readonly log: Log = console,
  ) {
    this.producer = new Redis(redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true });
    this.queue = new Queue(MONITOR_TICKS_QUEUE, { connection: this.producer, prefix });
  }

  async schedule(monitor: MonitorRow): Promise<void> {
    const s = storedSchedule(monitor);
    const repeat = s.kind === 'interval' ? { every: s.everyMs } : { pattern: s.pattern, tz: s.timezone };
    await this.queue.upsertJobScheduler(monitor.id, repeat, {
      name: 'tick',
      data: { monitorId: monitor.id },
      opts: {
        removeOnComplete: true,
        removeOnFail: 1000,
        attempts: 3,
        backoff: { type: 'exponential', delay: 1000 },
      },
    });
  }

  async unschedule(monitorId: string): Promise<void> {
    await this.queue.removeJobScheduler(monitorId);
  }

  /** Consumes ticks (a worker's part); each tick message's id names the tick. */
  async start(ticks: Ticks, concurrency = 8): Promise<void> {
    this.workerConnection = new Redis(this.redisUrl, { maxRetriesPerRequest: null });
    this.worker = new Worker(
      MONITOR_TICKS_QUEUE,
      async (message) => ticks.tick((message.data as { monitorId: string }).monitorId, String(message.id)),
      { connection: this.workerConnection, prefix: this.prefix, concurrency, autorun: true },
    );
    this.worker.on('error', (err) => this.log.error({ err }, 'monitor tick worker error'));
    await this.worker.waitUntilReady();
  }

  /** Gives every monitor that should tick its scheduler (one lost between a commit and Redis). */
  async reconcile(monitors: readonly MonitorRow[]): Promise<void> {
    for (const m of monitors) {
      if (m.status === 'paused' && m.paused_reason === 'user') await this.unschedule(m.id);
      else await this.schedule(m);
    }
  }

  async stop(): Promise<void> {
    await this.worker?.close();
    this.worker = null;
  }

  async close(): Promise<void> {
    await this.stop();
    await this.queue.close();
    this.workerConnection?.disconnect();
    this.producer.disconnect();
  }
}
