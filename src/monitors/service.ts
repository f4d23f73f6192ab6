// Monitors: create, list, change, pause, delete, and their events — and the tick, which turns a
// due schedule into a check job. Checks are ordinary billed jobs (check-job.ts); this service only
// decides when one is queued. A tick that finds the balance short pauses the monitor (reason
// `credits`, with a `monitor.paused` event); its ticks keep coming, and the first one the balance
// covers again resumes it (`monitor.resumed`) and checks.
import { timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.js';
import { AppError, invalid, notFound } from '../errors.js';
import { newId, randomBase62 } from '../ids.js';
import type { JobService, SubmitResult } from '../jobs/service.js';
import { schemaProblem } from '../media/llm/schema.js';
import type { SafeFetcher } from '../net/safe-fetch.js';
import { lockAccountRow } from '../store/account-lock.js';
import type { MonitorRow } from '../store/schema.js';

export type { MonitorRow };

import { checkInputOf, MONITOR_CHECK_KIND, recordEvents } from './check-job.js';
import { type MonitorKind, MonitorOptions, type MonitorOptionValues, OPTIONS_OF } from './kinds.js';
import type { MonitorRecords, NewMonitorEvent } from './records.js';
import { checksPerHour, nextTick, parseSchedule, type Schedule, storedSchedule } from './schedule.js';

/** Where the ticks of monitors come from: the embedded clock reads `next_check_at`; BullMQ keeps its own. */
export interface MonitorScheduler {
  /** Makes the monitor's ticks happen on its schedule (replacing an earlier one). */
  schedule(monitor: MonitorRow): Promise<void>;
  unschedule(monitorId: string): Promise<void>;
}

/** What a monitor's target is resolved with (the video platform's channel and playlist lookups). */
export interface TargetResolver {
  channel(ref: string): Promise<{ id: string | null; name: string | null }>;
  playlist(id: string): Promise<{ id: string; title: string | null }>;
}

export interface MonitorSpec extends MonitorOptionValues {
  kind: MonitorKind;
  target: string;
  every: string;
  timezone?: string;
  name?: string;
  webhookUrl?: string;
}

export interface MonitorChanges extends MonitorOptionValues {
  every?: string;
  timezone?: string | null;
  name?: string | null;
  webhookUrl?: string | null;
  paused?: boolean;
  rotateFeedToken?: boolean;
}

export interface MonitorServiceDeps {
  records: MonitorRecords;
  jobs: Pick<JobService, 'submit'>;
  fetcher: Pick<SafeFetcher, 'checkUrl' | 'checkResolvedUrl'>;
  resolver: TargetResolver;
  scheduler: MonitorScheduler;
  settings: Config['monitors'];
  /** Whether a language model is configured (a page monitor's `schema` needs one). */
  canExtract: boolean;
  log?: { warn(obj: object, msg: string): void };
}

/** Checks shown with a monitor. */
const LAST_CHECKS = 5;

const checkDedupeKey = (monitorId: string) => `monitor:${monitorId}`;

export class MonitorService {
  constructor(private readonly deps: MonitorServiceDeps) {}

  get records(): MonitorRecords {
    return this.deps.records;
  }

  async create(accountId: string, spec: MonitorSpec): Promise<MonitorRow> {
    const { records, settings } = this.deps;
    const now = Date.now();
    const options = optionsFor(spec.kind, spec);
    if (options.schema !== undefined && !this.deps.canExtract) {
      throw invalid(
        'schema',
        'extracting fields needs a language model, and none is configured on this server (UNFURL_AI_BASE_URL)',
      );
    }
    const schedule = parseSchedule(spec.every, spec.timezone, settings.minIntervalMs, now);
    if (spec.webhookUrl !== undefined)
      await this.deps.fetcher.checkResolvedUrl(spec.webhookUrl, 'webhookUrl');
    const { target, name } = await this.resolve(spec.kind, spec.target);
    const row: MonitorRow = {
      id: newId('mon'),
      account_id: accountId,
      kind: spec.kind,
      target,
      name: spec.name ?? name,
      options: JSON.stringify(options),
      every: spec.every.trim(),
      timezone: schedule.kind === 'cron' ? schedule.timezone : null,
      webhook_url: spec.webhookUrl ?? null,
      status: 'active',
      paused_reason: null,
      state: null,
      state_version: 0,
      anchor_at: now,
      // The first check (the baseline) runs at once; the schedule takes over from the next tick.
      next_check_at: nextTick(schedule, now, now),
      last_check_at: null,
      ticks: 0,
      checks: 0,
      events: 0,
      feed_token: randomBase62(32),
      created_at: now,
      updated_at: now,
    };
    await records.db.transaction().execute(async (tx) => {
      await lockAccountRow(tx, accountId);
      const count = await records.countOfAccount(accountId, tx);
      if (count >= settings.maxPerAccount) {
        throw new AppError(
          'forbidden',
          `The account has ${count} monitors, the most it may have; delete one first`,
          'monitors',
        );
      }
      await this.checkHourlyBudget(accountId, schedule, now, tx);
      await records.insert(tx, row);
    });
    try {
      await this.queueCheck(row, 'first');
    } catch (err) {
      // Nothing scheduled, nothing charged: the monitor is not kept when its first check cannot run.
      await records.delete(records.db, row.id);
      throw err;
    }
    await this.deps.scheduler.schedule(row);
    return row;
  }

  async get(accountId: string, id: string): Promise<MonitorRow> {
    const row = await this.deps.records.ofAccount(accountId, id);
    if (!row) throw notFound('Monitor');
    return row;
  }

  lastChecks(row: MonitorRow) {
    return this.deps.records.lastChecks(row.account_id, checkDedupeKey(row.id), LAST_CHECKS);
  }

  list(accountId: string, limit: number, cursor?: string) {
    return this.deps.records.list(accountId, limit, cursor);
  }

  async events(accountId: string, id: string, limit: number, cursor?: string) {
    const monitor = await this.get(accountId, id);
    return { monitor, ...(await this.deps.records.events(id, limit, cursor)) };
  }

  async update(accountId: string, id: string, changes: MonitorChanges): Promise<MonitorRow> {
    const { records, settings } = this.deps;
    const current = await this.get(accountId, id);
    const now = Date.now();
    const set: Parameters<MonitorRecords['update']>[2] = {};
    const optionChanges = pickOptions(changes);
    if (optionChanges.schema !== undefined && !this.deps.canExtract) {
      throw invalid(
        'schema',
        'extracting fields needs a language model, and none is configured on this server (UNFURL_AI_BASE_URL)',
      );
    }
    if (Object.keys(optionChanges).length) {
      const merged = { ...(JSON.parse(current.options) as MonitorOptionValues), ...optionChanges };
      set.options = JSON.stringify(optionsFor(current.kind, merged));
    }
    let schedule: Schedule | null = null;
    if (changes.every !== undefined || changes.timezone !== undefined) {
      const every = changes.every ?? current.every;
      const timezone =
        changes.timezone === undefined ? (current.timezone ?? undefined) : (changes.timezone ?? undefined);
      schedule = parseSchedule(every, timezone, settings.minIntervalMs, now);
      Object.assign(set, {
        every: every.trim(),
        timezone: schedule.kind === 'cron' ? schedule.timezone : null,
        anchor_at: now,
      });
    }
    if (changes.webhookUrl !== undefined) {
      if (changes.webhookUrl !== null)
        await this.deps.fetcher.checkResolvedUrl(changes.webhookUrl, 'webhookUrl');
      set.webhook_url = changes.webhookUrl;
    }
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.rotateFeedToken) set.feed_token = randomBase62(32);
    if (changes.paused === true)
      Object.assign(set, { status: 'paused', paused_reason: 'user', next_check_at: null });
    const resuming = changes.paused === false && current.status === 'paused';
    if (resuming) Object.assign(set, { status: 'active', paused_reason: null });
    const active = (set.status ?? current.status) === 'active' || current.paused_reason === 'credits';
    if (active && changes.paused !== true && (schedule || resuming)) {
      set.next_check_at = nextTick(
        schedule ?? storedSchedule(current, now),
        now,
        set.anchor_at ?? current.anchor_at,
      );
    }
    const updated = await records.db.transaction().execute(async (tx) => {
      if (schedule) await this.checkHourlyBudget(accountId, schedule, now, tx, id);
      const row = await records.update(tx, id, set);
      if (!row) throw notFound('Monitor');
      if (resuming)
        await this.addEvents(tx, row, [
          { type: 'monitor.resumed', dedupeKey: `resumed:${randomBase62(16)}`, data: { reason: 'user' } },
        ]);
      if (changes.paused === true && current.status !== 'paused') {
        await this.addEvents(tx, row, [
          { type: 'monitor.paused', dedupeKey: `paused:${randomBase62(16)}`, data: { reason: 'user' } },
        ]);
      }
      return row;
    });
    if (updated.status === 'paused' && updated.paused_reason === 'user')
      await this.deps.scheduler.unschedule(id);
    else if (schedule || resuming) await this.deps.scheduler.schedule(updated);
    return updated;
  }

  async delete(accountId: string, id: string): Promise<void> {
    await this.get(accountId, id);
    await this.deps.scheduler.unschedule(id);
    await this.deps.records.db.transaction().execute((tx) => this.deps.records.delete(tx, id));
  }

  /** A check now, outside the schedule (the same check as a tick's; one at a time per monitor). */
  async checkNow(accountId: string, id: string): Promise<SubmitResult> {
    const monitor = await this.get(accountId, id);
    const since = Date.now() - 3_600_000;
    const recent = await this.deps.records.checksSince(accountId, MONITOR_CHECK_KIND, since);
    if (recent >= this.deps.settings.maxChecksPerHour) {
      throw new AppError(
        'rate_limited',
        `The account's monitors made ${recent} checks in the last hour, the most allowed`,
        null,
        { retryAfterMs: 60_000 },
      );
    }
    return this.queueCheck(monitor, undefined);
  }

  /** The monitor behind a feed URL, if its token is right (compared in constant time). */
  async byFeedToken(id: string, token: string): Promise<MonitorRow | undefined> {
    const row = await this.deps.records.get(id);
    if (!row) return undefined;
    const a = Buffer.from(row.feed_token);
    const b = Buffer.from(token);
    return a.length === b.length && timingSafeEqual(a, b) ? row : undefined;
  }

  /**
   * A tick of a monitor's schedule: queue its check. `tick` names the tick (its time, or the
   * scheduler's id for it) so that a tick delivered twice queues one check.
   */
  async tick(monitorId: string, tick: string): Promise<void> {
    const monitor = await this.deps.records.get(monitorId);
    if (!monitor) {
      await this.deps.scheduler.unschedule(monitorId);
      return;
    }
    if (monitor.status === 'paused' && monitor.paused_reason === 'user') return;
    await this.deps.records.countTick(monitorId);
    try {
      await this.queueCheck(monitor, tick);
    } catch (err) {
      if (err instanceof AppError && err.code === 'insufficient_credits') {
        if (monitor.status === 'active') await this.pauseForCredits(monitor, tick);
        return;
      }
      // Its live checks are at the account's limit: this tick's check is skipped, the next will run.
      if (err instanceof AppError && err.code === 'rate_limited') return;
      throw err;
    }
    if (monitor.paused_reason === 'credits') await this.resumeAfterCredits(monitor, tick);
  }

  private async queueCheck(monitor: MonitorRow, tick: string | undefined): Promise<SubmitResult> {
    return this.deps.jobs.submit({
      accountId: monitor.account_id,
      kind: MONITOR_CHECK_KIND,
      input: checkInputOf(monitor, tick),
      ...(tick !== undefined && { idempotencyKey: `monitor:${monitor.id}:${tick}`.slice(0, 255) }),
    });
  }

  private async pauseForCredits(monitor: MonitorRow, tick: string): Promise<void> {
    const { records } = this.deps;
    await records.db.transaction().execute(async (tx) => {
      const row = await records.update(tx, monitor.id, { status: 'paused', paused_reason: 'credits' });
      if (row) {
        await this.addEvents(tx, row, [
          { type: 'monitor.paused', dedupeKey: `paused:${tick}`, data: { reason: 'credits' } },
        ]);
      }
    });
  }

  private async resumeAfterCredits(monitor: MonitorRow, tick: string): Promise<void> {
    const { records } = this.deps;
    await records.db.transaction().execute(async (tx) => {
      const row = await records.update(tx, monitor.id, { status: 'active', paused_reason: null });
      if (row) {
        await this.addEvents(tx, row, [
          { type: 'monitor.resumed', dedupeKey: `resumed:${tick}`, data: { reason: 'credits' } },
        ]);
      }
    });
  }

  private async addEvents(
    tx: Parameters<typeof recordEvents>[0],
    row: MonitorRow,
    events: NewMonitorEvent[],
  ) {
    const inserted = await this.deps.records.addEvents(tx, row, events);
    await recordEvents(tx, this.deps.records, row, inserted);
  }

  /** The account's schedules may make at most maxChecksPerHour checks an hour, this one included. */
  private async checkHourlyBudget(
    accountId: string,
    schedule: Schedule,
    now: number,
    tx: Parameters<MonitorRecords['schedulesOfAccount']>[1],
    replacing?: string,
  ): Promise<void> {
    const { records, settings } = this.deps;
    let total = checksPerHour(schedule, now);
    for (const m of await records.schedulesOfAccount(accountId, tx)) {
      if (m.id === replacing || (m.status === 'paused' && m.paused_reason === 'user')) continue;
      total += checksPerHour(storedSchedule(m, now), now);
    }
    if (total > settings.maxChecksPerHour) {
      throw invalid(
        'every',
        `with this schedule the account's monitors would check ${total} times an hour; the most is ${settings.maxChecksPerHour}`,
      );
    }
  }

  /** The canonical target: a channel's or playlist's id (an unknown one → 404), or a checked URL. */
  private async resolve(kind: MonitorKind, raw: string): Promise<{ target: string; name: string | null }> {
    const target = raw.trim();
    try {
      switch (kind) {
        case 'channel': {
          const channel = await this.deps.resolver.channel(target);
          return { target: channel.id ?? target, name: channel.name };
        }
        case 'playlist': {
          const playlist = await this.deps.resolver.playlist(target);
          return { target: playlist.id, name: playlist.title };
        }
        case 'page':
        case 'site':
          return { target: this.deps.fetcher.checkUrl(target, 'target').href, name: null };
      }
    } catch (err) {
      // The lookup's own 400/404 names its own parameter; here the caller gave `target`.
      if (err instanceof AppError && (err.code === 'not_found' || err.code === 'invalid_request')) {
        throw new AppError(err.code, err.message, 'target');
      }
      throw err;
    }
  }
}

function pickOptions(from: MonitorOptionValues): MonitorOptionValues {
  const keys = Object.keys(MonitorOptions) as Array<keyof MonitorOptionValues>;
  return Object.fromEntries(
    keys.filter((k) => from[k] !== undefined).map((k) => [k, from[k]]),
  ) as MonitorOptionValues;
}

/** The options a kind takes, checked: another kind's option is a 400 naming it. */
function optionsFor(kind: MonitorKind, given: MonitorOptionValues): MonitorOptionValues {
  const options = pickOptions(given);
  for (const key of Object.keys(options) as Array<keyof MonitorOptionValues>) {
    if (!OPTIONS_OF[kind].includes(key)) {
      throw invalid(key, `a ${kind} monitor does not take it (it takes ${OPTIONS_OF[kind].join(', ')})`);
    }
  }
  if (options.schema !== undefined) {
    const problem = schemaProblem(options.schema);
    if (problem) throw invalid('schema', problem);
  }
  if (options.diff && !options.scrape) throw invalid('diff', 'diffs need `scrape: true`');
  return options;
}
