// The distributed queue: one BullMQ queue per job kind on Redis. A message carries a job id (and,
// for a first attempt with nothing held and no webhook, what the worker needs to run it), or a
// bundle of such first attempts. Our jobs table stays the truth: every state change is a guarded
// SQL write, so a message delivered twice (stall recovery) ends the job once. Retries are ours too:
// a retry is a new, delayed message.
import { type Job, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { BATCHES_IN_FLIGHT, MicroBatcher } from '../store/micro-batch.js';
import { Permits } from './permits.js';
import type { FreshJob, JobConsumer, JobQueue, QueuedJob } from './queue.js';

export const bullQueueName = (kind: string) => `jobs-${kind}`;

/** A message's data: one job, or a bundle of first attempts accepted together. */
interface MessageData {
  jobId?: string;
  fresh?: FreshJob;
  jobs?: Array<{ jobId: string; fresh: FreshJob }>;
}

const MESSAGE_OPTS = { removeOnComplete: true, removeOnFail: 1000, attempts: 1 } as const;

/** One message per attempt; a repeated enqueue of the same attempt is ignored by BullMQ. */
function single(job: QueuedJob) {
  const data: MessageData = job.fresh ? { jobId: job.id, fresh: job.fresh } : { jobId: job.id };
  const delay = job.runAt - Date.now();
  return {
    name: 'run',
    data,
    opts: {
      ...MESSAGE_OPTS,
      jobId: `${job.id}-a${job.attempt}${job.nonce ? `-${job.nonce}` : ''}`,
      ...(delay > 0 && { delay }),
    },
  };
}

function bundle(jobs: readonly QueuedJob[]) {
  const data: MessageData = { jobs: jobs.map((j) => ({ jobId: j.id, fresh: j.fresh! })) };
  return { name: 'bundle', data, opts: { ...MESSAGE_OPTS, jobId: `${jobs[0]!.id}-bundle` } };
}

/**
 * Runs a message's jobs, each under one of the kind's permits. A message delivered again (its
 * worker stalled or died) runs nothing unclaimed: each job is claimed first, so one that already
 * ended, or runs elsewhere, is not run twice.
 */
async function deliver(message: Job, consumer: JobConsumer, permits: Permits): Promise<void> {
  const data = message.data as MessageData;
  const again = message.attemptsStarted > 1 || message.stalledCounter > 0;
  const jobs = data.jobs ?? [{ jobId: data.jobId!, fresh: data.fresh }];
  const runs = await Promise.allSettled(
    jobs.map(async ({ jobId, fresh }) => {
      await permits.take();
      try {
        await consumer.runById(jobId, again ? undefined : fresh);
      } finally {
        permits.give();
      }
    }),
  );
  const failed = runs.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

export class BullMqQueue implements JobQueue {
  readonly name = 'bullmq' as const;
  private readonly queues = new Map<string, Queue>();
  private readonly batchers = new Map<string, MicroBatcher<QueuedJob>>();
  private readonly workers: Worker[] = [];
  private readonly producer: Redis;
  private workerConnection: Redis | null = null;

  constructor(
    private readonly redisUrl: string,
    private readonly leaseMs: number,
    private readonly prefix: string,
    private readonly log: { error(obj: object, msg: string): void } = console,
    /** The most jobs of a kind one bundle carries (its concurrency per worker, capped; 1: no bundles). */
    private readonly bundleSize: (kind: string) => number = () => 1,
  ) {
    // Producers fail fast when Redis is down; the sweeper re-sends jobs that never reached it.
    this.producer = new Redis(redisUrl, {
      maxRetriesPerRequest: 2,
      enableOfflineQueue: true,
    });
  }

  private queue(kind: string): Queue {
    let q = this.queues.get(kind);
    if (!q) {
      q = new Queue(bullQueueName(kind), { connection: this.producer, prefix: this.prefix });
      this.queues.set(kind, q);
    }
    return q;
  }

  /**
   * Enqueues arriving together go to Redis as one pipeline per kind. First attempts that can run
   * straight from their message (`fresh`) share messages: bundles of at most the kind's
   * concurrency, so a burst costs BullMQ one message per bundle, not per job, and a bundle never
   * holds more than one worker would run at once anyway.
   */
  private batcher(kind: string): MicroBatcher<QueuedJob> {
    let b = this.batchers.get(kind);
    if (!b) {
      b = new MicroBatcher<QueuedJob>(
        async (jobs) => {
          const fresh = jobs.filter((j) => j.fresh);
          const messages = jobs.filter((j) => !j.fresh).map(single);
          const size = Math.max(1, this.bundleSize(kind));
          for (let i = 0; i < fresh.length; i += size) {
            const part = fresh.slice(i, i + size);
            messages.push(part.length === 1 ? single(part[0]!) : bundle(part));
          }
          await this.queue(kind).addBulk(messages);
        },
        500,
        BATCHES_IN_FLIGHT,
      );
      this.batchers.set(kind, b);
    }
    return b;
  }

  enqueue(job: QueuedJob): Promise<void> {
    return this.batcher(job.kind).add(job);
  }

  async start(kinds: ReadonlyArray<{ kind: string; concurrency: number }>, consumer: JobConsumer) {
    this.workerConnection = new Redis(this.redisUrl, { maxRetriesPerRequest: null });
    for (const { kind, concurrency } of kinds) {
      // Jobs of this kind running in this process, bundled or not: never more than its concurrency.
      const permits = new Permits(concurrency);
      const worker = new Worker(bullQueueName(kind), (message) => deliver(message, consumer, permits), {
        connection: this.workerConnection,
        prefix: this.prefix,
        concurrency,
        lockDuration: this.leaseMs,
        stalledInterval: Math.max(1000, Math.floor(this.leaseMs / 2)),
        maxStalledCount: 10,
        autorun: true,
      });
      worker.on('error', (err) => this.log.error({ err, kind }, 'bullmq worker error'));
      this.workers.push(worker);
    }
    await Promise.all(this.workers.map((w) => w.waitUntilReady()));
  }

  async drain(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
    this.workers.length = 0;
  }

  async close(): Promise<void> {
    await this.drain();
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.workerConnection?.disconnect();
    this.producer.disconnect();
  }
}
