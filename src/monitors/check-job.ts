// The monitor check job kind: one check of one monitor, an ordinary billed job (held before, settled
// after, nothing charged when it fails). It runs the check of the monitor's kind, then records the
// new state and its events — each event once, with its webhook queued — in one transaction, only
// over the state it read: a check run again after a crash finds the state moved on and reports
// nothing twice. Its last failed attempt is reported as a `check.failed` event, never as a change.
import { type Static, Type } from '@sinclair/typebox';
import { type PriceRow, prices } from '../billing/prices.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { classify } from '../jobs/failures.js';
import type { JobRegistry } from '../jobs/registry.js';
import type { JobContext, PerAccountLimit } from '../jobs/types.js';
import { queueDelivery } from '../jobs/webhooks.js';
import type { Tx } from '../store/db.js';
import type { MonitorEventRow, MonitorRow } from '../store/schema.js';
import type { CheckContext, CheckOutcome } from './checks/check.js';
import { checkPage, type PageCheckDeps, type PageState } from './checks/page.js';
import { checkSite, type SiteCheckDeps, type SiteState } from './checks/site.js';
import { checkVideos, type VideoCheckDeps, type VideosState } from './checks/videos.js';
import {
  checkEstimate,
  DEFAULT_MAX_VIDEOS,
  DEFAULT_SITE_LIMIT,
  MONITOR_CHECK_PRICES,
  MONITOR_KINDS,
  type MonitorOptionValues,
} from './kinds.js';
import type { MonitorRecords, NewMonitorEvent } from './records.js';

/** The kind's name: its queue, and the `kind` the monitor service submits. */
export const MONITOR_CHECK_KIND = 'monitor_check';

/** Its row of the price table: what its requests cost (MONITOR_CHECK_PRICES, checkEstimate). */
export const MONITOR_CHECK_PRICE: PriceRow = {
  operation: 'Monitor check',
  price: `what its requests cost: ${prices.syncRequest} per listing, scrape or map, ${prices.syncRequest} per new video reported (its metadata), each transcript at its price, ${prices.syncRequest} per page scraped by a site monitor, ${MONITOR_CHECK_PRICES.fieldsExtraction} per extraction of a page monitor’s fields (at the baseline and when the page changed); a failed check costs nothing`,
};

/** Checks an account may have queued or running at once: UNFURL_ACCOUNT_MAX_MONITOR_CHECKS. */
export const MONITOR_CHECKS_LIMIT = {
  key: 'monitorChecks',
  name: 'monitor checks',
} as const satisfies PerAccountLimit<keyof Config['accountJobLimits']>;

/** Attempts of one check: an upstream that blocks once often answers the next time. */
export const CHECK_ATTEMPTS = 3;

/** The job's input: the monitor, and what sizes its hold (copied from the monitor when it was queued). */
export const CheckInput = Type.Object({
  monitorId: Type.String(),
  kind: Type.Union(MONITOR_KINDS.map((k) => Type.Literal(k))),
  maxVideos: Type.Optional(Type.Integer({ minimum: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
  scrape: Type.Optional(Type.Boolean()),
  scrapeLimit: Type.Optional(Type.Integer({ minimum: 0 })),
  fields: Type.Optional(Type.Boolean()),
  /** The tick it is for (scheduled), or absent (asked for now). */
  tick: Type.Optional(Type.String()),
});
export type CheckJobInput = Static<typeof CheckInput>;

export interface CheckResult {
  monitorId: string;
  /** The first check: it only set the baseline. */
  baseline: boolean;
  /** Events it recorded. */
  events: number;
  cost: number;
  /** Why it did nothing: the monitor was deleted meanwhile, or another check wrote first. */
  skipped?: 'deleted' | 'superseded';
}

/** The job input of a check of `monitor`. */
export function checkInputOf(monitor: MonitorRow, tick?: string): CheckJobInput {
  const options = JSON.parse(monitor.options) as MonitorOptionValues;
  return {
    monitorId: monitor.id,
    kind: monitor.kind,
    ...((monitor.kind === 'channel' || monitor.kind === 'playlist') && {
      maxVideos: options.maxVideos ?? DEFAULT_MAX_VIDEOS,
    }),
    ...(monitor.kind === 'site' && {
      limit: options.limit ?? DEFAULT_SITE_LIMIT,
      scrape: options.scrape ?? false,
    }),
    ...(monitor.kind === 'page' && options.schema !== undefined && { fields: true }),
    ...(tick !== undefined && { tick }),
  };
}

const estimateOf = (input: CheckJobInput) => checkEstimate(input.kind, input);

/** A balance short of the estimate reports fewer new videos (or scrapes fewer pages) this time. */
function fitCheckToBalance(input: CheckJobInput, balance: number): CheckJobInput {
  const spare = Math.floor(balance) - 1;
  // A page's fields are extracted whole or not at all: its check is not made smaller.
  if (spare < 0 || (input.kind === 'page' && balance < estimateOf(input))) {
    throw new AppError(
      'insufficient_credits',
      `This monitor's check needs at least ${input.kind === 'page' ? estimateOf(input) : 1} credits`,
      `balance=${balance}`,
    );
  }
  if (input.kind === 'channel' || input.kind === 'playlist') {
    return { ...input, maxVideos: Math.min(input.maxVideos ?? DEFAULT_MAX_VIDEOS, spare) };
  }
  // The map keeps its limit (it costs 1 whatever it finds): only the pages scraped are cut, so
  // pages left unscraped are not reported removed.
  if (input.kind === 'site' && input.scrape) {
    return { ...input, scrapeLimit: Math.min(input.scrapeLimit ?? input.limit ?? DEFAULT_SITE_LIMIT, spare) };
  }
  return input;
}

export interface MonitorCheckDeps {
  registry: JobRegistry;
  /** Checks this process runs at once (UNFURL_MONITOR_CHECK_CONCURRENCY). */
  concurrency: number;
  records: MonitorRecords;
  videos: VideoCheckDeps;
  pages: PageCheckDeps & SiteCheckDeps;
}

/** Records events once and queues the webhook of each newly recorded one. */
export async function recordEvents(
  tx: Tx,
  records: MonitorRecords,
  monitor: MonitorRow,
  inserted: readonly MonitorEventRow[],
): Promise<void> {
  if (!monitor.webhook_url) return;
  for (const event of inserted) {
    const deliveryId = await queueDelivery(tx, {
      accountId: monitor.account_id,
      about: event.id,
      url: monitor.webhook_url,
      type: event.type,
      data: eventData(event, monitor),
    });
    await records.setDelivery(tx, event.id, deliveryId);
  }
}

/** What a webhook and the events list say of an event. */
export function eventData(
  event: MonitorEventRow,
  monitor: Pick<MonitorRow, 'id' | 'kind' | 'target' | 'name'>,
) {
  return {
    eventId: event.id,
    monitorId: monitor.id,
    monitor: { kind: monitor.kind, target: monitor.target, name: monitor.name },
    createdAt: event.created_at,
    ...(JSON.parse(event.data) as Record<string, unknown>),
  };
}

async function runCheck(
  deps: MonitorCheckDeps,
  monitor: MonitorRow,
  input: CheckJobInput,
  ctx: CheckContext,
): Promise<CheckOutcome<unknown>> {
  const options = JSON.parse(monitor.options) as MonitorOptionValues;
  const state = monitor.state === null ? null : JSON.parse(monitor.state);
  switch (monitor.kind) {
    case 'channel':
    case 'playlist':
      return checkVideos(
        deps.videos,
        {
          kind: monitor.kind,
          target: monitor.target,
          maxVideos: input.maxVideos ?? DEFAULT_MAX_VIDEOS,
          ...(options.transcript && { transcript: options.transcript }),
        },
        state as VideosState | null,
        ctx,
      );
    case 'page':
      return checkPage(
        deps.pages,
        {
          url: monitor.target,
          ...(options.render && { render: options.render }),
          ...(options.schema && { schema: options.schema }),
        },
        state as PageState | null,
        ctx,
      );
    case 'site':
      return checkSite(
        deps.pages,
        {
          url: monitor.target,
          limit: input.limit ?? DEFAULT_SITE_LIMIT,
          scrape: input.scrape ?? false,
          ...(input.scrapeLimit !== undefined && { scrapeLimit: input.scrapeLimit }),
          diff: options.diff ?? false,
          ...(options.render && { render: options.render }),
        },
        state as SiteState | null,
        ctx,
      );
  }
}

async function check(deps: MonitorCheckDeps, ctx: JobContext, input: CheckJobInput): Promise<CheckResult> {
  const { records } = deps;
  const monitor = await records.get(input.monitorId);
  if (!monitor)
    return { monitorId: input.monitorId, baseline: false, events: 0, cost: 0, skipped: 'deleted' };
  let outcome: CheckOutcome<unknown>;
  try {
    outcome = await runCheck(deps, monitor, input, ctx);
  } catch (err) {
    const { retryable, code, message } = classify(err);
    if (!ctx.cancelled && (!retryable || ctx.attempt >= CHECK_ATTEMPTS)) {
      await reportFailure(deps, monitor, ctx.jobId, code, message);
    }
    throw err;
  }
  const events: NewMonitorEvent[] = outcome.events.map((e) => ({ ...e, jobId: ctx.jobId }));
  const written = await records.db.transaction().execute(async (tx) => {
    const inserted = await records.recordCheck(tx, monitor, outcome.state, events);
    if (inserted) await recordEvents(tx, records, monitor, inserted);
    return inserted;
  });
  return {
    monitorId: monitor.id,
    baseline: outcome.baseline,
    events: written?.length ?? 0,
    // A check that lost the race to another wrote nothing, and costs nothing.
    cost: written ? outcome.cost : 0,
    ...(written === null && { skipped: 'superseded' as const }),
  };
}

async function reportFailure(
  deps: MonitorCheckDeps,
  monitor: MonitorRow,
  jobId: string,
  code: string,
  message: string,
): Promise<void> {
  await deps.records.db.transaction().execute(async (tx) => {
    const inserted = await deps.records.addEvents(tx, monitor, [
      { type: 'check.failed', dedupeKey: `failed:${jobId}`, data: { error: code, message }, jobId },
    ]);
    await recordEvents(tx, deps.records, monitor, inserted);
  });
}

export function registerMonitorChecks(deps: MonitorCheckDeps): void {
  deps.registry.register<CheckJobInput, CheckResult>({
    kind: MONITOR_CHECK_KIND,
    inputSchema: CheckInput,
    price: MONITOR_CHECK_PRICE,
    perAccount: MONITOR_CHECKS_LIMIT,
    estimate: estimateOf,
    fitToBalance: fitCheckToBalance,
    cost: (_input, result) => result.cost,
    maxAttempts: CHECK_ATTEMPTS,
    // One live check per monitor: a tick or a manual check while one runs joins it.
    dedupeKey: (input) => `monitor:${input.monitorId}`,
    concurrency: deps.concurrency,
    timeoutMs: 20 * 60_000,
    run: (ctx, input) => check(deps, ctx, input),
  });
}
