// What a capability provides to add a job kind: its name, input schema, the most it can cost, how to
// run it, what it finally costs, the live-job limit it counts against and how its jobs look to their
// owner. The engine does the rest (queueing, retries, billing, webhooks) and names no kind.
import type { TSchema } from '@sinclair/typebox';
import type { PriceRow } from '../billing/prices.js';
import type { JobRow } from '../store/schema.js';
import type { ItemsPage } from './items.js';

export interface JobContext {
  readonly jobId: string;
  readonly accountId: string;
  /** 1 on the first run. */
  readonly attempt: number;
  /** Aborted when the job times out, the worker shuts down or its owner cancels it. */
  readonly signal: AbortSignal;
  /**
   * True once its owner cancelled it (the signal is aborted too). A handler whose partial work is
   * worth keeping (a crawl's pages) returns it: the job ends `cancelled`, billed by `cost` for that
   * result. A handler that throws instead ends it `cancelled` with nothing charged.
   */
  readonly cancelled: boolean;
  /**
   * Reserves more credits once the job knows its real size (e.g. media duration). At most one
   * extra hold per job; if the balance cannot cover it the job fails with insufficient_credits.
   */
  holdMore(credits: number): Promise<void>;
}

export interface JobKind<I = unknown, R = unknown> {
  /**
   * Also the queue name shown as `queue` (transcript, ocr, describe, extract, crawl, …). Each kind
   * exports it as a constant, which its route and its registration use.
   */
  readonly kind: string;
  readonly inputSchema: TSchema;
  /** The most the job can cost, held when it is accepted. */
  estimate(input: I): number;
  /**
   * A kind that can do less for less (a crawl with fewer pages): the input cut to what `balance`
   * pays for, asked only when the balance is short of `estimate(input)`, under the account row's
   * lock. Throws insufficient_credits when not even the smallest job fits. Without it, such a job
   * is refused with 402.
   */
  fitToBalance?(input: I, balance: number): I;
  run(ctx: JobContext, input: I): Promise<R>;
  /** The real cost once it succeeded; capped at what was held. */
  cost(input: I, result: R): number;
  /**
   * Its row of the price table (/docs/reference#prices), for people: written from the rates its
   * `estimate` and `cost` read, which live beside it (`OCR_PRICES`). Kinds that share a row (the two
   * batch kinds) give the same one, shown once. A kind without one is not shown (a stand-in of tests).
   */
  readonly price?: PriceRow;
  /** Jobs of this kind run at once per process (default 4). */
  readonly concurrency?: number;
  /**
   * Whether this process can run the kind (default yes). One that cannot still accepts such jobs
   * but never claims them: they wait for a worker that can (speech recognition on some workers only).
   */
  runsHere?(): boolean;
  readonly maxAttempts?: number;
  /** Per-attempt time limit (default 10 minutes). */
  readonly timeoutMs?: number;
  /**
   * The per-account limit on live (queued or active) jobs this kind counts against, so one account
   * cannot fill the shared slots: crawls, or media jobs (speech, OCR, describe, extract).
   */
  readonly perAccount?: PerAccountLimit;
  /** Same account and key while a job is queued or active → that job instead of a new one. */
  dedupeKey?(input: I): string | null;
  /** How its jobs look to their owner (poll route, webhooks); default `{status, data, error}`. */
  readonly poll?: JobPoll;
}

/**
 * A group of kinds whose live (queued or active) jobs one account may have only so many of. Kinds
 * declaring the same `key` count together.
 */
export interface PerAccountLimit<K extends string = string> {
  /** Where its limit is: the key in Config's `accountJobLimits` (an `UNFURL_ACCOUNT_MAX_*` setting). */
  readonly key: K;
  /** How a refusal names the group's jobs ("crawls", "media jobs (speech, OCR, describe, extract)"). */
  readonly name: string;
}

/** What a poll answer shows of a job's items: the slice loaded, and how to link the next one. */
export interface ViewOptions {
  skip?: number;
  nextUrl?: (skip: number) => string;
  /** The slice of the job's items to show (paged routes load it; webhooks have none). */
  page?: ItemsPage;
}

/**
 * How the jobs of a kind look to their owner: the answer of its poll route, which its webhooks send
 * too (as `data`, beside `jobId`). jobs/views.ts has the generic pieces views are made of.
 */
export interface JobPoll {
  /**
   * The answer's schema (TypeBox): its poll route's 200 in /openapi.json, and what Fastify serializes
   * the answer with — so it names every field `view` returns (one it leaves out is dropped).
   */
  readonly schema: TSchema;
  view(job: JobRow, opts: ViewOptions): Record<string, unknown>;
  /** The stored result as its owner reads it (also in GET /v1/jobs/{jobId}); default: as stored. */
  result?(stored: unknown): unknown;
  /**
   * Its answers show a slice of the job's items from `?skip=`: at most this many (a byte budget
   * applies too), with `next` while more remain.
   */
  readonly pageSize?: number;
}

export type { JobRow };
