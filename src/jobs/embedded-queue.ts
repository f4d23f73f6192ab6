// The embedded queue: the jobs table itself, polled and woken in-process. A job inserted by this
// process starts at once; others (retries coming due, jobs of other processes) within `pollMs`.
import type { JobRow } from '../store/schema.js';
import type { JobConsumer, JobQueue, QueuedJob } from './queue.js';

/** Jobs claimed in one statement at most: fewer commits under load, fair enough across processes. */
const CLAIM_BATCH = 16;

interface Lane {
  kind: string;
  concurrency: number;
  running: number;
  pumping: boolean;
  again: boolean;
}

export class EmbeddedQueue implements JobQueue {
  readonly name = 'embedded' as const;
  private lanes = new Map<string, Lane>();
  private consumer: JobConsumer | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly delayed = new Set<NodeJS.Timeout>();
  private readonly active = new Set<Promise<void>>();
  /** Pumps in progress: a claim may be in flight, and the job it takes must be waited for too. */
  private readonly pumps = new Set<Promise<void>>();
  private draining = false;

  constructor(
    private readonly pollMs: number,
    private readonly log: { error(obj: object, msg: string): void } = console,
  ) {}

  async enqueue(job: QueuedJob): Promise<void> {
    if (!this.consumer) return; // an API-only process: a worker process polls the table
    const wait = job.runAt - Date.now();
    if (wait <= 0) return this.pump(job.kind);
    const t = setTimeout(() => {
      this.delayed.delete(t);
      this.pump(job.kind);
    }, wait);
    t.unref();
    this.delayed.add(t);
  }

  async start(kinds: ReadonlyArray<{ kind: string; concurrency: number }>, consumer: JobConsumer) {
    this.consumer = consumer;
    this.draining = false;
    for (const k of kinds) {
      this.lanes.set(k.kind, { ...k, running: 0, pumping: false, again: false });
    }
    this.timer = setInterval(() => {
      for (const lane of this.lanes.values()) this.pump(lane.kind);
    }, this.pollMs);
    this.timer.unref();
    for (const lane of this.lanes.values()) this.pump(lane.kind);
  }

  /** Claims and starts jobs of a kind until its lane is full or nothing is due. */
  private pump(kind: string): void {
    const lane = this.lanes.get(kind);
    if (!lane || !this.consumer || this.draining) return;
    if (lane.pumping) {
      lane.again = true;
      return;
    }
    lane.pumping = true;
    const pumping: Promise<void> = (async () => {
      try {
        do {
          lane.again = false;
          while (lane.running < lane.concurrency && !this.draining) {
            const free = Math.min(lane.concurrency - lane.running, CLAIM_BATCH);
            const jobs = await this.consumer!.claimDue(kind, free);
            for (const job of jobs) this.launch(lane, job);
            if (jobs.length < free) break;
          }
        } while (lane.again && !this.draining);
      } catch (err) {
        this.log.error({ err, kind }, 'claiming jobs failed');
      } finally {
        lane.pumping = false;
      }
    })();
    this.pumps.add(pumping);
    void pumping.finally(() => this.pumps.delete(pumping));
  }

  private launch(lane: Lane, job: JobRow): void {
    lane.running++;
    const p = this.consumer!.run(job)
      .catch((err) => this.log.error({ err, job: job.id }, 'job run crashed'))
      .finally(() => {
        lane.running--;
        this.active.delete(p);
        this.pump(lane.kind);
      });
    this.active.add(p);
  }

  async drain(): Promise<void> {
    this.draining = true;
    if (this.timer) clearInterval(this.timer);
    for (const t of this.delayed) clearTimeout(t);
    this.delayed.clear();
    while (this.active.size || this.pumps.size) {
      await Promise.allSettled([...this.active, ...this.pumps]);
    }
  }

  async close(): Promise<void> {
    await this.drain();
  }
}
