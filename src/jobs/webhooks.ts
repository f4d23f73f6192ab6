// Outgoing webhooks (Standard Webhooks). A delivery row is written in the same transaction that
// ends the job (an outbox), then sent — signed, SSRF-guarded, retried with backoff — by a dispatcher.
import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import { newId } from '../ids.js';
import type { SafeFetcher } from '../net/safe-fetch.js';
import type { Db, Dialect, Tx } from '../store/db.js';
import type { JobRow, WebhookDeliveryRow } from '../store/schema.js';
import { type KnownKinds, pollAnswer } from './views.js';

export type WebhookEvent = 'job.completed' | 'job.failed' | 'job.cancelled';

/** `v1,<base64 HMAC-SHA256(id.timestamp.body)>` with the secret's bytes (after `whsec_`). */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * Queues the webhook of a job that just ended (its final row), inside the transaction that ended it:
 * its data is the job's poll answer, in its kind's shape.
 */
export async function enqueueWebhook(tx: Tx, ended: JobRow, kinds: KnownKinds): Promise<void> {
  if (!ended.webhook_url) return;
  const event: WebhookEvent = `job.${ended.status as 'completed' | 'failed' | 'cancelled'}`;
  await queueDelivery(tx, {
    accountId: ended.account_id,
    about: ended.id,
    url: ended.webhook_url,
    type: event,
    data: { jobId: ended.id, ...pollAnswer(kinds, ended) },
  });
}

/** One webhook to send: what it is about (a job, a monitor's event), where, and its `type` and `data`. */
export interface Delivery {
  accountId: string;
  /** The job or event it is about (webhook_deliveries.job_id). */
  about: string;
  url: string;
  type: string;
  data: Record<string, unknown>;
}

/**
 * Writes a delivery into the outbox inside the caller's transaction, so it is sent (by the
 * dispatcher) exactly when what it tells of is committed. Its id, which the receiver sees as
 * `webhook-id`.
 */
export async function queueDelivery(tx: Db | Tx, d: Delivery): Promise<string> {
  const now = Date.now();
  const id = newId('msg');
  await tx
    .insertInto('webhook_deliveries')
    .values({
      id,
      account_id: d.accountId,
      job_id: d.about,
      url: d.url,
      event_type: d.type,
      payload: JSON.stringify({ type: d.type, timestamp: now, data: d.data }),
      status: 'pending',
      next_attempt_at: now,
      locked_until: null,
      last_status: null,
      last_error: null,
      created_at: now,
      delivered_at: null,
    })
    .execute();
  return id;
}

export interface WebhookSettings {
  retryBaseMs: number;
  maxAttempts: number;
  timeoutMs: number;
}

export class WebhookDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private stopped = false;
  private inFlight = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly fetcher: SafeFetcher,
    private readonly settings: WebhookSettings,
    private readonly log: { warn(obj: object, msg: string): void } = console,
  ) {}

  start(pollMs = 250): void {
    this.stopped = false;
    this.timer = setInterval(() => void this.tick(), pollMs);
    this.timer.unref();
  }

  /** Sends what is due now (also called right after a job ends, to avoid waiting for the timer). */
  async tick(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    try {
      for (;;) {
        const d = await this.claim();
        if (!d) break;
        const p = this.send(d)
          .catch((err) =>
            this.log.warn({ err, delivery: d.id }, 'webhook delivery crashed; it will be retried'),
          )
          .finally(() => this.inFlight.delete(p));
        this.inFlight.add(p);
        if (this.inFlight.size >= 16) await Promise.race(this.inFlight);
      }
    } catch (err) {
      this.log.warn({ err }, 'webhook dispatcher tick failed');
    } finally {
      this.running = false;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([...this.inFlight]);
  }

  private async claim(): Promise<WebhookDeliveryRow | undefined> {
    const now = Date.now();
    let pick = this.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
      .orderBy('next_attempt_at')
      .limit(1);
    if (this.dialect === 'pg') pick = pick.forUpdate().skipLocked();
    return this.db
      .updateTable('webhook_deliveries')
      .set({ locked_until: now + this.settings.timeoutMs + 5000, attempts: sql`attempts + 1` })
      .where('id', '=', (eb) => eb.selectFrom(pick.as('next')).select('next.id'))
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirst();
  }

  private async send(d: WebhookDeliveryRow): Promise<void> {
    const account = await this.db
      .selectFrom('accounts')
      .select('webhook_secret')
      .where('id', '=', d.account_id)
      .executeTakeFirstOrThrow();
    const timestamp = Math.floor(Date.now() / 1000);
    let status: number | null = null;
    let error: string | null = null;
    try {
      const res = await this.fetcher.fetch(d.url, {
        method: 'POST',
        body: d.payload,
        maxRedirects: 0,
        timeoutMs: this.settings.timeoutMs,
        maxBytes: 64 * 1024,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Unfurl-Webhooks/0.1',
          'webhook-id': d.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(account.webhook_secret, d.id, timestamp, d.payload),
        },
      });
      status = res.status;
      if (status < 200 || status >= 300) error = `receiver answered ${status}`;
    } catch (err) {
      error = (err as Error).message.slice(0, 1000);
    }
    const now = Date.now();
    if (!error) {
      await this.db
        .updateTable('webhook_deliveries')
        .set({
          status: 'delivered',
          delivered_at: now,
          last_status: status,
          last_error: null,
          locked_until: null,
        })
        .where('id', '=', d.id)
        .execute();
      return;
    }
    const exhausted = d.attempts >= this.settings.maxAttempts;
    const backoff = this.settings.retryBaseMs * 2 ** (d.attempts - 1);
    await this.db
      .updateTable('webhook_deliveries')
      .set({
        status: exhausted ? 'failed' : 'pending',
        next_attempt_at: now + backoff,
        last_status: status,
        last_error: error,
        locked_until: null,
      })
      .where('id', '=', d.id)
      .execute();
    this.log.warn({ delivery: d.id, job: d.job_id, attempt: d.attempts, error }, 'webhook delivery failed');
  }
}
