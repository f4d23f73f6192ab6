// A monitor's schedule: an interval (`15m`, `1h30m`, `PT15M`) or a cron expression in a time zone.
// The embedded deployment computes ticks here; the distributed one hands the same schedule to BullMQ's
// upsertJobScheduler (`{ every }` or `{ pattern, tz }`), which runs the same cron-parser, so both agree.
// Pure: `now` is always passed in.
import { CronExpressionParser } from 'cron-parser';
import { parseDuration } from '../durations.js';
import { invalid } from '../errors.js';

export type Schedule =
  | { readonly kind: 'interval'; readonly everyMs: number }
  | { readonly kind: 'cron'; readonly pattern: string; readonly timezone: string };

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const MAX_TEXT = 100;
const MAX_INTERVAL_MS = 31 * DAY;
/** Ticks whose gaps parseSchedule checks against the minimum interval. */
const GAP_TICKS = 50;
/** checksPerHour looks this far ahead for a cron's busiest hour… */
const BUSY_HORIZON_MS = 7 * DAY;
/** …or at most this many ticks (one a minute for a week): cron-parser takes ~50µs a tick. */
const BUSY_MAX_TICKS = 10_080;

const ACCEPTED = "an interval like 15m or 1h, or a cron expression like '0 9 * * 1-5'";

/** Parses the caller's `every` (+ `timezone`), refusing what is too frequent, too rare or malformed. */
export function parseSchedule(
  every: string,
  timezone: string | undefined,
  minIntervalMs: number,
  now: number,
): Schedule {
  const text = every.trim();
  if (text === '') throw invalid('every', `must not be empty: give ${ACCEPTED}`);
  if (text.length > MAX_TEXT) throw invalid('every', `must be at most ${MAX_TEXT} characters`);
  const minText = formatDuration(minIntervalMs);

  const everyMs = parseDuration(text);
  if (everyMs !== null) {
    if (timezone !== undefined) {
      throw invalid('timezone', 'applies only to a cron expression, not to an interval');
    }
    if (everyMs < minIntervalMs) throw invalid('every', `must be at least ${minText}`);
    if (everyMs > MAX_INTERVAL_MS) throw invalid('every', 'must be at most 31 days (31d)');
    return { kind: 'interval', everyMs };
  }

  const fields = text.split(/\s+/);
  // cron-parser also takes 4 fields and `@daily`; we hold callers to the two standard forms.
  if (fields.length !== 5 && fields.length !== 6) {
    throw invalid('every', `expected ${ACCEPTED} (cron: 5 fields, or 6 with seconds first)`);
  }
  // `H` picks a random value per parse unless seeded: our ticks and BullMQ's would differ.
  if (fields.some((f) => /(^|[^a-z])h/i.test(f))) {
    throw invalid('every', "the cron 'H' (hashed) value is not supported: give explicit minutes and hours");
  }
  const pattern = fields.join(' ');
  const tz = checkTimezone(timezone);
  const schedule: Schedule = { kind: 'cron', pattern, timezone: tz };

  let expr: ReturnType<typeof CronExpressionParser.parse>;
  try {
    expr = CronExpressionParser.parse(pattern, { currentDate: new Date(now), tz });
  } catch (e) {
    throw invalid('every', `not a valid cron expression (${reason(e)}); expected ${ACCEPTED}`);
  }
  const ticks: number[] = [];
  try {
    for (let i = 0; i < GAP_TICKS; i++) ticks.push(expr.next().getTime());
  } catch (e) {
    // A pattern that never fires, or cron-parser losing its way at a DST change (Australia/Lord_Howe's
    // half hour): BullMQ would silently stop scheduling it, so refuse it now.
    throw invalid('every', `cannot work out when this cron expression fires in ${tz} (${reason(e)})`);
  }
  for (let i = 1; i < ticks.length; i++) {
    if (ticks[i]! - ticks[i - 1]! < minIntervalMs) {
      throw invalid(
        'every',
        `this cron expression fires more often than the minimum of once every ${minText}`,
      );
    }
  }
  return schedule;
}

const reason = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The caller's IANA time zone, canonically spelt (`europe/paris` → `Europe/Paris`); default UTC. */
function checkTimezone(timezone: string | undefined): string {
  if (timezone === undefined) return 'UTC';
  const why = "must be an IANA time zone name like 'Europe/Paris' or 'UTC'";
  // Intl also takes fixed offsets like `+01:00`, which follow no DST rules: ask for a zone's name.
  if (timezone.length > MAX_TEXT || !/^[A-Za-z]/.test(timezone)) throw invalid('timezone', why);
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
  } catch {
    throw invalid('timezone', why);
  }
}

/**
 * The first tick strictly after `after`. Intervals tick at anchor + k·everyMs (k ≥ 0; anchor: when the
 * monitor was created or last rescheduled), computed from the anchor each time so ticks never drift.
 * Cron ticks come from cron-parser exactly as BullMQ computes them; `anchor` does not apply. Throws
 * where cron-parser cannot find the next tick (where BullMQ's getNextMillis gives up with undefined).
 */
export function nextTick(s: Schedule, after: number, anchor: number): number {
  if (s.kind === 'interval') {
    if (after < anchor) return anchor;
    return anchor + (Math.floor((after - anchor) / s.everyMs) + 1) * s.everyMs;
  }
  const expr = CronExpressionParser.parse(s.pattern, { currentDate: new Date(after), tz: s.timezone });
  return expr.next().getTime();
}

/**
 * The most checks the schedule makes in an hour, for the per-account limit. Intervals:
 * ceil(1h / every). Cron: the most ticks in any 1-hour window over the next 7 days from `now`, and
 * at least 1 (a cron first firing beyond the week still costs checks: no monitor is free).
 */
export function checksPerHour(s: Schedule, now: number): number {
  if (s.kind === 'interval') return Math.ceil(HOUR / s.everyMs);
  const expr = CronExpressionParser.parse(s.pattern, { currentDate: new Date(now), tz: s.timezone });
  // No hour can hold more than (seconds × minutes the pattern allows) ticks, DST aside: once a window
  // reaches that, stop. Walking the whole week of a per-minute cron would take cron-parser ~0.7 s.
  const ceiling = expr.fields.second.values.length * expr.fields.minute.values.length;
  const window: number[] = []; // the ticks in [latest − 1h, latest]
  let most = 1;
  for (let seen = 0; seen < BUSY_MAX_TICKS && most < ceiling; seen++) {
    let t: number;
    try {
      t = expr.next().getTime();
    } catch {
      break; // cron-parser lost at a DST change (see nextTick): count what it gave
    }
    if (t > now + BUSY_HORIZON_MS) break;
    window.push(t);
    while (window[0]! <= t - HOUR) window.shift();
    most = Math.max(most, window.length);
  }
  return most;
}

/**
 * The schedule as the API shows it back. Intervals are rendered canonically (`90m` → `1h30m`,
 * `PT15M` → `15m`); a cron shows its pattern (whitespace collapsed) and time zone, UTC included.
 */
export function describeSchedule(s: Schedule): { every: string; timezone?: string } {
  if (s.kind === 'interval') return { every: formatDuration(s.everyMs) };
  return { every: s.pattern, timezone: s.timezone };
}

/** `5400000` → `1h30m`; whole seconds (sub-second remainders are dropped, never produced here). */
function formatDuration(ms: number): string {
  let rest = Math.floor(ms / SECOND);
  if (rest === 0) return '0s';
  let out = '';
  for (const [unit, size] of [
    ['d', DAY / SECOND],
    ['h', HOUR / SECOND],
    ['m', MINUTE / SECOND],
    ['s', 1],
  ] as const) {
    if (rest >= size) {
      out += `${Math.floor(rest / size)}${unit}`;
      rest %= size;
    }
  }
  return out;
}

/**
 * A schedule as a monitor stores it: accepted under the minimum of the day it was written, so none
 * applies when it is read again (a minimum raised since does not stop a monitor).
 */
export function storedSchedule(m: { every: string; timezone: string | null }, now = Date.now()): Schedule {
  return parseSchedule(m.every, m.timezone ?? undefined, 1, now);
}
