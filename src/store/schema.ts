// Row types of every table, as Kysely sees them. Times are integer Unix milliseconds.
import type { Generated, Insertable, Selectable } from 'kysely';

export interface AccountsTable {
  id: string;
  email: string;
  password_hash: string;
  webhook_secret: string;
  balance: number;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  /** 'api' for keys listed under /v1/keys, 'session' for login tokens. */
  kind: 'api' | 'session';
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  expires_at: number | null;
}

export interface CreditTransactionsTable {
  id: string;
  account_id: string;
  amount: number;
  type: string;
  description: string;
  job_id: string | null;
  /** Unique when set: makes a purchase, release or settlement happen at most once. */
  reference: string | null;
  /** 1 when the entry was capped (a clawback larger than the balance). */
  flagged: Generated<number>;
  created_at: number;
  /** What the credits were for: a job's kind or a request's operation (scrape, crawl, …); '' for grants, purchases and clawbacks. */
  operation: string | null;
}

/**
 * Sums of the ledger per account, period ('hour', 'day': UTC, starting at `start` in Unix ms; 'all':
 * all time, start 0), type and operation.
 */
export interface LedgerSumsTable {
  account_id: string;
  period: 'hour' | 'day' | 'all';
  start: number;
  type: string;
  operation: string;
  amount: number;
  entries: number;
}

/** Jobs per account and status, as of the last fold of job_count_deltas. */
export interface JobCountsTable {
  account_id: string;
  status: string;
  n: number;
}

/** ±1 per job insert, delete or status change (written by a trigger), not yet folded into job_counts. */
export interface JobCountDeltasTable {
  id: Generated<number>;
  account_id: string;
  status: string;
  delta: number;
}

export interface CheckoutsTable {
  id: string;
  account_id: string;
  package_id: string;
  credits: number;
  price_usd: string;
  provider: 'stripe' | 'test';
  provider_ref: string | null;
  status: 'open' | 'completed';
  created_at: number;
  completed_at: number | null;
  /** Test-mode checkouts: the token the confirm must carry (from the checkout's own page). */
  confirm_token: string | null;
}

export type JobStatus = 'queued' | 'active' | 'completed' | 'failed' | 'cancelled';

/** The states a job ends in. */
export const ENDED_JOB_STATES: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];

export interface JobsTable {
  id: string;
  account_id: string;
  /** The job kind, which is also its queue name. */
  kind: string;
  status: JobStatus;
  /** JSON of the validated input. */
  input: string;
  /** JSON of the result; cleared once the result expires. */
  result: string | null;
  error: string | null;
  error_code: string | null;
  attempts: Generated<number>;
  max_attempts: number;
  /** Credits held for the job so far. */
  held: Generated<number>;
  /** Credits settled when the job ended. */
  cost: number | null;
  webhook_url: string | null;
  /** Same input by the same account while a job runs → that job (e.g. transcripts). */
  dedupe_key: string | null;
  /** When a queued job may next run (retries back off). */
  run_at: number;
  locked_by: string | null;
  /** Lease end of an active job; past it the job is taken to be lost and runs again. */
  locked_until: number | null;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
  duration_ms: number | null;
  result_expires_at: number | null;
  /** When its owner asked to cancel it while it ran (its worker stops it and ends it cancelled). */
  cancel_requested_at: number | null;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  request_hash: string;
  job_id: string;
  created_at: number;
}

export interface WebhookDeliveriesTable {
  id: string;
  account_id: string;
  job_id: string;
  url: string;
  event_type: string;
  /** The exact JSON body signed and sent on every attempt. */
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: number;
  locked_until: number | null;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

/** One piece of a job's result (a crawled page), in order. */
export interface JobItemsTable {
  job_id: string;
  seq: number;
  /** JSON of the item. */
  data: string;
  /** UTF-8 size of data, so a reader can stop at a byte budget without loading it. */
  bytes: number;
}

/** The hold of a synchronous request still running (removed when it is settled or released). */
export interface RequestHoldsTable {
  request_id: string;
  account_id: string;
  amount: number;
  /** The request's operation, for its release and settlement (null: held before it was recorded). */
  operation: string | null;
  created_at: number;
}

/** A scheduled check of a channel, playlist, page or site (src/monitors/). */
export interface MonitorsTable {
  id: string;
  account_id: string;
  kind: 'channel' | 'playlist' | 'page' | 'site';
  /** What is watched, canonical: a channel id, a playlist id, a URL. */
  target: string;
  /** A label for people (the channel's or playlist's title, the caller's name). */
  name: string | null;
  /** JSON of the kind's options (transcript, render, schema, limit, …). */
  options: string;
  /** The caller's schedule: an interval (`15m`) or a cron expression, with `timezone` for cron. */
  every: string;
  timezone: string | null;
  webhook_url: string | null;
  status: 'active' | 'paused';
  /** Why it is paused: its owner asked (`user`) or the credits ran out (`credits`). */
  paused_reason: 'user' | 'credits' | null;
  /** JSON of what the last check saw; null until the first check sets the baseline. */
  state: string | null;
  /** Bumped by every state write: a check writes only over the state it read. */
  state_version: Generated<number>;
  /** Where interval ticks count from (creation, or the last schedule change). */
  anchor_at: number;
  /** The next tick (embedded deployment's schedule); null while paused by its owner. */
  next_check_at: number | null;
  last_check_at: number | null;
  /** Ticks of its schedule taken (a tick while its last check still runs joins that check). */
  ticks: Generated<number>;
  checks: Generated<number>;
  events: Generated<number>;
  /** Authorises the Atom feed (feed readers cannot send headers); rotating it revokes the old URL. */
  feed_token: string;
  created_at: number;
  updated_at: number;
}

/** Something a monitor's check found (a new video, a page change) or that happened to it. */
export interface MonitorEventsTable {
  id: string;
  monitor_id: string;
  account_id: string;
  type: string;
  /** Unique per monitor: the same finding is recorded once however often a check runs. */
  dedupe_key: string;
  /** JSON of the event's data. */
  data: string;
  /** The check that found it. */
  job_id: string | null;
  /** Its webhook delivery (webhook_deliveries.id), when the monitor has a webhook. */
  delivery_id: string | null;
  created_at: number;
}

/** A file a request or a job produced (a screenshot), served to its owner until it expires (src/files/). */
export interface FilesTable {
  id: string;
  account_id: string;
  /** The job that produced it, if a job did. */
  job_id: string | null;
  content_type: string;
  /** Size of data. */
  bytes: number;
  /** The bytes: BLOB on SQLite, bytea on PostgreSQL; both drivers answer a Buffer. */
  data: Buffer;
  created_at: number;
  expires_at: number;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  credit_transactions: CreditTransactionsTable;
  checkouts: CheckoutsTable;
  jobs: JobsTable;
  idempotency_keys: IdempotencyKeysTable;
  webhook_deliveries: WebhookDeliveriesTable;
  job_items: JobItemsTable;
  request_holds: RequestHoldsTable;
  ledger_sums: LedgerSumsTable;
  job_counts: JobCountsTable;
  job_count_deltas: JobCountDeltasTable;
  monitors: MonitorsTable;
  monitor_events: MonitorEventsTable;
  files: FilesTable;
}

export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type CreditTransactionRow = Selectable<CreditTransactionsTable>;
export type NewCreditTransaction = Insertable<CreditTransactionsTable>;
export type CheckoutRow = Selectable<CheckoutsTable>;
export type JobRow = Selectable<JobsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type MonitorRow = Selectable<MonitorsTable>;
export type MonitorEventRow = Selectable<MonitorEventsTable>;
export type FileRow = Selectable<FilesTable>;
