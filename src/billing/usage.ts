// Reads the caller's credit history (GET /v1/account/usage and its summary). Only reads: the ledger
// writes. Every read here costs the same however long the account's history is: pages walk an
// index from a cursor, totals and sums come from ledger_sums, which the ledger keeps in each entry's
// own transaction.
import { AppError } from '../errors.js';
import type { Db } from '../store/db.js';
import { decodeCursor, pageOf } from '../store/keyset.js';
import { PERIOD_MS, periodStart } from '../store/rollups.js';

export interface UsageQuery {
  limit: number;
  offset: number;
  type?: string;
  /** The `next` of a previous page: the page after it (keyset), instead of `offset`. */
  cursor?: string;
}

export type Bucket = 'hour' | 'day';
/** At most this many buckets in one summary (a day of hours … five years of days). */
export const MAX_BUCKETS = 2000;

export interface SummaryQuery {
  /** Unix ms; rounded down to the bucket's start. */
  from: number;
  /** Unix ms, exclusive; rounded up to the next bucket's start. */
  to: number;
  bucket: Bucket;
}

/** Credit flows of one bucket or range. Every figure is ≥ 0 except `held` and `net`. */
export interface Flows {
  /** Credits charged (settled entries). */
  spent: number;
  bought: number;
  granted: number;
  clawedBack: number;
  /** Credits held and not released within the range (holds minus releases): in-flight work. */
  held: number;
  /** How the balance moved: granted + bought − spent − clawedBack − held. */
  net: number;
}

const zero = (): Flows => ({ spent: 0, bought: 0, granted: 0, clawedBack: 0, held: 0, net: 0 });

function addTo(f: Flows, type: string, amount: number) {
  if (type === 'settled') f.spent -= amount;
  else if (type === 'purchase') f.bought += amount;
  else if (type === 'grant') f.granted += amount;
  else if (type === 'clawback') f.clawedBack -= amount;
  else f.held -= amount; // hold (negative) and release (positive)
  f.net += amount;
}

/** What a transaction's `job_id` names, by its id's prefix. */
export type RefKind = 'job' | 'request' | 'checkout';

export function refKind(id: string | null): RefKind | null {
  if (!id) return null;
  if (id.startsWith('job_')) return 'job';
  if (id.startsWith('req_')) return 'request';
  if (id.startsWith('chk_')) return 'checkout';
  return null;
}

export class CreditHistory {
  constructor(private readonly db: Db) {}

  /** One page of the account's transactions, newest first, and how many there are in all. */
  async list(accountId: string, q: UsageQuery) {
    let base = this.db.selectFrom('credit_transactions').where('account_id', '=', accountId);
    if (q.type) base = base.where('type', '=', q.type);
    let page = base;
    if (q.cursor) {
      const after = decodeCursor(q.cursor);
      page = page.where((eb) =>
        eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)),
      );
    }
    const [rows, total] = await Promise.all([
      page
        .select(['id', 'amount', 'type', 'description', 'operation', 'job_id', 'created_at'])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(q.limit + 1)
        .offset(q.offset)
        .execute(),
      this.count(accountId, q.type),
    ]);
    const { rows: transactions, next } = pageOf(rows, q.limit);
    return {
      transactions: transactions.map((t) => ({
        id: t.id,
        amount: t.amount,
        type: t.type,
        description: t.description,
        operation: t.operation ?? '',
        job_id: t.job_id,
        ref_kind: refKind(t.job_id),
        created_at: t.created_at,
      })),
      total,
      next,
    };
  }

  /** How many entries the account has (of one type): its all-time sums, a row per type and operation. */
  private async count(accountId: string, type?: string): Promise<number> {
    let q = this.db
      .selectFrom('ledger_sums')
      .select((eb) => eb.fn.sum<number | string | null>('entries').as('n'))
      .where('account_id', '=', accountId)
      .where('period', '=', 'all')
      .where('start', '=', 0);
    if (type) q = q.where('type', '=', type);
    const row = await q.executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Credits the account was charged (settled requests and jobs) since `since` (ms, a UTC midnight). */
  async spentSince(accountId: string, since: number): Promise<number> {
    const row = await this.db
      .selectFrom('ledger_sums')
      .select((eb) => eb.fn.sum<number | string | null>('amount').as('total'))
      .where('account_id', '=', accountId)
      .where('period', '=', 'day')
      .where('start', '>=', periodStart('day', since))
      .where('type', '=', 'settled')
      .executeTakeFirst();
    return Math.abs(Number(row?.total ?? 0));
  }

  /**
   * Credit flows per bucket (hour or UTC day) over [from, to), in total and per operation, read from
   * ledger_sums: at most (buckets × types × operations) rows, whatever the history.
   */
  async summary(accountId: string, q: SummaryQuery) {
    const size = PERIOD_MS[q.bucket];
    const from = q.from - (q.from % size);
    const to = q.to % size === 0 ? q.to : q.to - (q.to % size) + size;
    if (to <= from)
      throw new AppError('invalid_request', "Invalid parameter 'to': must be after 'from'", 'to');
    const count = (to - from) / size;
    if (count > MAX_BUCKETS) {
      throw new AppError(
        'invalid_request',
        `Invalid parameter 'to': at most ${MAX_BUCKETS} ${q.bucket} buckets per summary (asked ${count})`,
        'to',
      );
    }
    const rows = await this.db
      .selectFrom('ledger_sums')
      .select(['start', 'type', 'operation', 'amount', 'entries'])
      .where('account_id', '=', accountId)
      .where('period', '=', q.bucket)
      .where('start', '>=', from)
      .where('start', '<', to)
      .execute();

    const buckets = new Map<number, Flows & { spentByOperation: Record<string, number> }>();
    for (let start = from; start < to; start += size) {
      buckets.set(start, Object.assign(zero(), { spentByOperation: {} }));
    }
    const totals = zero();
    const operations = new Map<string, { operation: string; spent: number; held: number; entries: number }>();
    for (const r of rows) {
      const amount = Number(r.amount);
      const b = buckets.get(Number(r.start))!;
      addTo(b, r.type, amount);
      addTo(totals, r.type, amount);
      if (r.operation === '') continue;
      let op = operations.get(r.operation);
      if (!op) {
        op = { operation: r.operation, spent: 0, held: 0, entries: 0 };
        operations.set(r.operation, op);
      }
      op.entries += Number(r.entries);
      if (r.type === 'settled') {
        op.spent -= amount;
        b.spentByOperation[r.operation] = (b.spentByOperation[r.operation] ?? 0) - amount;
      } else if (r.type === 'hold' || r.type === 'release') {
        op.held -= amount;
      }
    }
    return {
      from,
      to,
      bucket: q.bucket,
      totals,
      buckets: [...buckets].map(([start, f]) => ({ start, ...f })),
      operations: [...operations.values()].sort(
        (a, b) => b.spent - a.spent || a.operation.localeCompare(b.operation),
      ),
    };
  }
}

/** This month in UTC, the period credits are reported for: its start (ms and ISO) and the next's. */
export function thisMonth(now = new Date()): { startMs: number; start: string; end: string } {
  const startMs = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return { startMs, start: new Date(startMs).toISOString(), end: new Date(end).toISOString() };
}
