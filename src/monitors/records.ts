// The monitors and their events in the database: reads, and the writes the service and the checks
// make inside their transactions. Nothing here decides; MonitorService and the check job do.
import { sql } from 'kysely';
import { newId } from '../ids.js';
import type { Db, Dialect, Tx } from '../store/db.js';
import { decodeCursor, pageOf } from '../store/keyset.js';
import type { MonitorEventRow, MonitorRow, MonitorsTable } from '../store/schema.js';

/** An event a check (or the scheduler) records. */
export interface NewMonitorEvent {
  type: string;
  /** Unique per monitor: the same finding is recorded once. */
  dedupeKey: string;
  data: Record<string, unknown>;
  jobId?: string | null;
}

/** An event as its list shows it, with the state of its webhook delivery. */
export type EventWithDelivery = MonitorEventRow & {
  delivery_status: string | null;
  delivery_attempts: number | null;
  delivery_last_status: number | null;
  delivery_last_error: string | null;
  delivery_delivered_at: number | null;
};

export class MonitorRecords {
  constructor(
    readonly db: Db,
    readonly dialect: Dialect,
  ) {}

  get(id: string, db: Db | Tx = this.db): Promise<MonitorRow | undefined> {
    return db.selectFrom('monitors').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** A monitor of this account; anyone else's is "not found". */
  async ofAccount(accountId: string, id: string): Promise<MonitorRow | undefined> {
    const row = await this.get(id);
    return row && row.account_id === accountId ? row : undefined;
  }

  async countOfAccount(accountId: string, db: Db | Tx = this.db): Promise<number> {
    const row = await db
      .selectFrom('monitors')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Every monitor of the account (for the checks-per-hour budget; bounded by the per-account limit). */
  schedulesOfAccount(accountId: string, db: Db | Tx = this.db) {
    return db
      .selectFrom('monitors')
      .select(['id', 'every', 'timezone', 'status', 'paused_reason'])
      .where('account_id', '=', accountId)
      .execute();
  }

  /** A page of the account's monitors, newest first, after `cursor`. */
  async list(accountId: string, limit: number, cursor?: string) {
    let q = this.db.selectFrom('monitors').selectAll().where('account_id', '=', accountId);
    if (cursor) {
      const after = decodeCursor(cursor);
      q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
    }
    const rows = await q
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
    return pageOf(rows, limit);
  }

  insert(tx: Db | Tx, row: MonitorRow): Promise<unknown> {
    return tx.insertInto('monitors').values(row).execute();
  }

  async update(
    tx: Db | Tx,
    id: string,
    changes: Partial<
      Omit<MonitorsTable, 'id' | 'account_id' | 'state_version' | 'ticks' | 'checks' | 'events'>
    >,
  ): Promise<MonitorRow | undefined> {
    return tx
      .updateTable('monitors')
      .set({ ...changes, updated_at: Date.now() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async delete(tx: Db | Tx, id: string): Promise<boolean> {
    const res = await tx.deleteFrom('monitors').where('id', '=', id).executeTakeFirst();
    await tx.deleteFrom('monitor_events').where('monitor_id', '=', id).execute();
    return Number(res.numDeletedRows) > 0;
  }

  /** Every monitor (a distributed deployment's schedulers are reconciled with them at start). */
  all(): Promise<MonitorRow[]> {
    return this.db.selectFrom('monitors').selectAll().execute();
  }

  /** Monitors whose tick is due (the embedded deployment's schedule), soonest first. */
  due(now: number, limit: number): Promise<MonitorRow[]> {
    return this.db
      .selectFrom('monitors')
      .selectAll()
      .where('next_check_at', '<=', now)
      .orderBy('next_check_at')
      .limit(limit)
      .execute();
  }

  /** Counts a tick taken. */
  async countTick(id: string): Promise<void> {
    await this.db.updateTable('monitors').set({ ticks: sql`ticks + 1` }).where('id', '=', id).execute();
  }

  /** Moves a due tick on, only if nobody else did: true when this caller owns the tick. */
  async advance(id: string, from: number, to: number): Promise<boolean> {
    const res = await this.db
      .updateTable('monitors')
      .set({ next_check_at: to })
      .where('id', '=', id)
      .where('next_check_at', '=', from)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /**
   * A check's findings: the new state (only over the version it read: false when another check
   * wrote first, and nothing is written) and its events, each recorded once. The events inserted.
   */
  async recordCheck(
    tx: Tx,
    monitor: Pick<MonitorRow, 'id' | 'account_id' | 'state_version'>,
    state: unknown,
    events: readonly NewMonitorEvent[],
    now = Date.now(),
  ): Promise<MonitorEventRow[] | null> {
    const moved = await tx
      .updateTable('monitors')
      .set({
        state: JSON.stringify(state),
        state_version: sql`state_version + 1`,
        last_check_at: now,
        checks: sql`checks + 1`,
      })
      .where('id', '=', monitor.id)
      .where('state_version', '=', monitor.state_version)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) === 0) return null;
    return this.addEvents(tx, monitor, events, now);
  }

  /** Records events not recorded before (by their dedupe key); those inserted, in order. */
  async addEvents(
    tx: Db | Tx,
    monitor: Pick<MonitorRow, 'id' | 'account_id'>,
    events: readonly NewMonitorEvent[],
    now = Date.now(),
  ): Promise<MonitorEventRow[]> {
    const inserted: MonitorEventRow[] = [];
    if (!events.length) return inserted;
    // A monitor's events are listed by time, newest first: each gets a later millisecond than the
    // one before it, so two recorded in one millisecond (a check's new videos, a pause and a
    // resume) keep the order they happened in.
    const newest = await tx
      .selectFrom('monitor_events')
      .select('created_at')
      .where('monitor_id', '=', monitor.id)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    let at = Math.max(now, newest ? Number(newest.created_at) + 1 : now);
    for (const e of events) {
      const row: MonitorEventRow = {
        id: newId('evt'),
        monitor_id: monitor.id,
        account_id: monitor.account_id,
        type: e.type,
        dedupe_key: e.dedupeKey.slice(0, 300),
        data: JSON.stringify(e.data),
        job_id: e.jobId ?? null,
        delivery_id: null,
        created_at: at,
      };
      const res = await tx
        .insertInto('monitor_events')
        .values(row)
        .onConflict((oc) => oc.columns(['monitor_id', 'dedupe_key']).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (res) {
        inserted.push(row);
        at++;
      }
    }
    if (inserted.length) {
      await tx
        .updateTable('monitors')
        .set({ events: sql`events + ${inserted.length}` })
        .where('id', '=', monitor.id)
        .execute();
    }
    return inserted;
  }

  setDelivery(tx: Db | Tx, eventId: string, deliveryId: string): Promise<unknown> {
    return tx
      .updateTable('monitor_events')
      .set({ delivery_id: deliveryId })
      .where('id', '=', eventId)
      .execute();
  }

  /** A page of a monitor's events, newest first, with their deliveries. */
  async events(monitorId: string, limit: number, cursor?: string) {
    let q = this.db
      .selectFrom('monitor_events as e')
      .leftJoin('webhook_deliveries as d', 'd.id', 'e.delivery_id')
      .selectAll('e')
      .select([
        'd.status as delivery_status',
        'd.attempts as delivery_attempts',
        'd.last_status as delivery_last_status',
        'd.last_error as delivery_last_error',
        'd.delivered_at as delivery_delivered_at',
      ])
      .where('e.monitor_id', '=', monitorId);
    if (cursor) {
      const after = decodeCursor(cursor);
      q = q.where((eb) => eb(eb.refTuple('e.created_at', 'e.id'), '<', eb.tuple(after.createdAt, after.id)));
    }
    const rows = (await q
      .orderBy('e.created_at', 'desc')
      .orderBy('e.id', 'desc')
      .limit(limit + 1)
      .execute()) as EventWithDelivery[];
    return pageOf(rows, limit);
  }

  /** The last checks of a monitor (its check jobs), newest first. */
  lastChecks(accountId: string, dedupeKey: string, limit: number) {
    return this.db
      .selectFrom('jobs')
      .select(['id', 'status', 'created_at', 'completed_at', 'cost', 'error', 'error_code'])
      .where('account_id', '=', accountId)
      .where('dedupe_key', '=', dedupeKey)
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute();
  }

  /** Check jobs the account started since `since` (the manual-check budget). */
  async checksSince(accountId: string, kind: string, since: number): Promise<number> {
    const row = await this.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('account_id', '=', accountId)
      .where('created_at', '>=', since)
      .where('kind', '=', kind)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
