// The distributed queue: one BullMQ queue per job kind on Redis. BullMQ carries only job ids; our
// jobs table stays the truth, so a message delivered twice (stall recovery) runs the job once:
// only one worker can claim the SQL row. Retries are ours too: a retry is a new, delayed message.
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { BATCHES_IN_FLIGHT, MicroBatcher } from './micro-batch.js';
import type { FreshJob, JobConsumer, JobQueue, QueuedJob } from './queue.js';

export const bullQueueName = (kind: string) => `jobs-${kind}`;

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

  /** Enqueues arriving together go to Redis as one pipeline per kind. */
  private batcher(kind: string): MicroBatcher<QueuedJob> {
    let b = this.batchers.get(kind);
    if (!b) {
      b = new MicroBatcher<QueuedJob>(
        async (jobs) => {
          await this.queue(kind).addBulk(
            jobs.map((job) => ({
              name: 'run',
              data: job.fresh ? { jobId: job.id, fresh: job.fresh } : { jobId: job.id },
              opts: {
                // One message per attempt; a repeated enqueue of the same attempt is ignored by BullMQ.
                jobId: `${job.id}-a${job.attempt}${job.nonce ? `-${job.nonce}` : ''}`,
                delay: Math.max(0, job.runAt - Date.now()),
                removeOnComplete: true,
                removeOnFail: 1000,
                attempts: 1,
              },
            })),
          );
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
      const worker = new Worker(
        bullQueueName(kind),
        async (message) => {
          const data = message.data as { jobId: string; fresh?: FreshJob };
          return consumer.runById(data.jobId, data.fresh);
        },
        {
          connection: this.workerConnection,
          prefix: this.prefix,
          concurrency,
          lockDuration: this.leaseMs,
          stalledInterval: Math.max(1000, Math.floor(this.leaseMs / 2)),
          maxStalledCount: 10,
          autorun: true,
        },
      );
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
