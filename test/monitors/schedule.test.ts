// A monitor's schedule: the forms `every` accepts, each refusal and the parameter it names, ticks that
// do not drift, cron in a time zone across a DST change, the busiest hour, and agreement with the
// next-run computation BullMQ itself uses for job schedulers (its exported getNextMillis).
import { getNextMillis } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/durations.js';
import { AppError } from '../../src/errors.js';
import {
  checksPerHour,
  describeSchedule,
  nextTick,
  parseSchedule,
  type Schedule,
} from '../../src/monitors/schedule.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
/** Saturday 2026-10-24 12:00 UTC: Europe/Paris leaves summer time the next night. */
const NOW = Date.parse('2026-10-24T12:00:00Z');

/** The parameter a call refuses with, and its message. */
function refusal(call: () => unknown): { param: string | null; message: string } {
  try {
    call();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    const err = e as AppError;
    expect(err.code).toBe('invalid_request');
    return { param: err.details, message: err.message };
  }
  throw new Error('expected a refusal');
}

describe('parseDuration', () => {
  it.each([
    ['300', 300 * S],
    ['0', 0],
    ['30s', 30 * S],
    ['5m', 5 * M],
    ['1h', H],
    ['1h30m', 90 * M],
    ['1d', D],
    ['1d12h', 36 * H],
    ['2w', 14 * D],
    [' 15M ', 15 * M],
    ['PT15M', 15 * M],
    ['pt30s', 30 * S],
    ['P1D', D],
    ['P1DT2H', 26 * H],
    ['PT1H30M', 90 * M],
    ['P1W', 7 * D],
  ])('%j is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    '',
    'm',
    '5x',
    '1.5h',
    '-5m',
    '1h 30m',
    '5 m',
    'P',
    'PT',
    'P1DT',
    'P1M',
    'P1Y',
    'PT1.5H',
    '*/5 * * * *',
    '99999999999999999999d',
  ])('%j is not a duration', (text) => {
    expect(parseDuration(text)).toBeNull();
  });
});

describe('parseSchedule accepts', () => {
  it.each([
    ['30s', 30 * S, '30s'],
    ['5m', 5 * M, '5m'],
    ['1h', H, '1h'],
    ['1h30m', 90 * M, '1h30m'],
    ['90m', 90 * M, '1h30m'],
    ['1d', D, '1d'],
    ['PT15M', 15 * M, '15m'],
    ['300', 5 * M, '5m'],
    ['31d', 31 * D, '31d'],
  ])('the interval %j', (every, everyMs, shown) => {
    const s = parseSchedule(every, undefined, 30 * S, NOW);
    expect(s).toEqual({ kind: 'interval', everyMs });
    expect(describeSchedule(s)).toEqual({ every: shown });
  });

  it('a 5-field cron, in UTC by default', () => {
    const s = parseSchedule('*/15 * * * *', undefined, 5 * M, NOW);
    expect(s).toEqual({ kind: 'cron', pattern: '*/15 * * * *', timezone: 'UTC' });
    expect(describeSchedule(s)).toEqual({ every: '*/15 * * * *', timezone: 'UTC' });
  });

  it('a cron in a time zone, the name canonically spelt and spaces collapsed', () => {
    const s = parseSchedule('  0 9  * * 1-5 ', 'europe/paris', 5 * M, NOW);
    expect(s).toEqual({ kind: 'cron', pattern: '0 9 * * 1-5', timezone: 'Europe/Paris' });
    expect(describeSchedule(s)).toEqual({ every: '0 9 * * 1-5', timezone: 'Europe/Paris' });
  });

  it('a 6-field cron with seconds, and day and month names', () => {
    expect(parseSchedule('30 */10 * * * *', undefined, 5 * M, NOW)).toMatchObject({ kind: 'cron' });
    expect(parseSchedule('0 9 * JAN-MAR MON-THU', 'America/New_York', 5 * M, NOW)).toMatchObject({
      pattern: '0 9 * JAN-MAR MON-THU',
      timezone: 'America/New_York',
    });
  });

  it('a cron whose ticks are exactly the minimum apart', () => {
    expect(parseSchedule('*/5 * * * *', undefined, 5 * M, NOW).kind).toBe('cron');
  });
});

describe('parseSchedule refuses', () => {
  const MIN = 5 * M;
  it.each([
    ['an empty every', '', undefined, 'every', /empty/],
    ['a blank every', '   ', undefined, 'every', /empty/],
    ['an overlong every', `${'0'.repeat(98)}15m`, undefined, 'every', /100 characters/],
    ['an interval under the minimum', '4m59s', undefined, 'every', /at least 5m/],
    ['a zero interval', '0s', undefined, 'every', /at least 5m/],
    ['an interval over 31 days', '32d', undefined, 'every', /31 days/],
    ['a time zone with an interval', '15m', 'Europe/Paris', 'timezone', /cron/],
    ['even UTC with an interval', '15m', 'UTC', 'timezone', /cron/],
    ['an unknown time zone', '0 9 * * *', 'Mars/Olympus', 'timezone', /IANA/],
    ['an empty time zone', '0 9 * * *', '', 'timezone', /IANA/],
    ['an offset for a time zone', '0 9 * * *', '+01:00', 'timezone', /IANA/],
    ['a cron more frequent than the minimum', '*/1 * * * *', undefined, 'every', /minimum.*5m/],
    ['a cron whose ticks bunch up once a day', '0,1 9 * * *', 'Asia/Tokyo', 'every', /minimum/],
    ['a 6-field cron every few seconds', '*/10 * * * * *', undefined, 'every', /minimum/],
    ['a 4-field cron', '0 9 * *', undefined, 'every', /cron expression like/],
    ['a 7-field cron', '0 0 9 * * * 2026', undefined, 'every', /cron expression like/],
    ['a hashed cron', 'H 9 * * *', undefined, 'every', /'H'/],
    ['an out-of-range cron field', '61 * * * *', undefined, 'every', /not a valid cron/],
    ['a cron on a day that never comes', '0 0 30 2 *', undefined, 'every', /not a valid cron/],
    ['nonsense words', 'every day', undefined, 'every', /15m or 1h/],
    ['a bare word', 'hourly', undefined, 'every', /15m or 1h/],
  ])('%s', (_what, every, timezone, param, message) => {
    const r = refusal(() => parseSchedule(every, timezone, MIN, NOW));
    expect(r.param).toBe(param);
    expect(r.message).toMatch(message);
  });

  it('the overlong case is really over 100 characters and would otherwise be an interval', () => {
    const long = `${'0'.repeat(98)}15m`;
    expect(long.length).toBe(101);
    expect(parseDuration(long)).toBe(15 * M);
    expect(parseSchedule(long.slice(1), undefined, M, NOW)).toEqual({ kind: 'interval', everyMs: 15 * M });
  });
});

describe('nextTick', () => {
  it('intervals tick at anchor + k·every, with no drift over many ticks', () => {
    const anchor = Date.parse('2026-01-01T00:00:03.250Z');
    const s: Schedule = { kind: 'interval', everyMs: 7 * M + 13 * S };
    let t = anchor;
    for (let k = 1; k <= 20_000; k++) {
      // A late worker: each check finishes some way into the period, yet the next tick stays on the grid.
      const finished = t + ((k * 7919) % s.everyMs);
      t = nextTick(s, finished, anchor);
      expect(t).toBe(anchor + k * s.everyMs);
    }
  });

  it('an interval tick is strictly after, and the anchor is the first tick', () => {
    const s: Schedule = { kind: 'interval', everyMs: 15 * M };
    const anchor = NOW;
    expect(nextTick(s, anchor, anchor)).toBe(anchor + 15 * M);
    expect(nextTick(s, anchor + 15 * M - 1, anchor)).toBe(anchor + 15 * M);
    expect(nextTick(s, anchor + 15 * M, anchor)).toBe(anchor + 30 * M);
    expect(nextTick(s, anchor + 10 * D + 1, anchor)).toBe(anchor + 10 * D + 15 * M);
    expect(nextTick(s, anchor - H, anchor)).toBe(anchor);
  });

  it("cron '0 9 * * *' in Europe/Paris moves from 07:00 to 08:00 UTC across 2026-10-25", () => {
    const s = parseSchedule('0 9 * * *', 'Europe/Paris', 5 * M, NOW);
    const ticks: string[] = [];
    let t = Date.parse('2026-10-23T12:00:00Z');
    for (let i = 0; i < 4; i++) {
      t = nextTick(s, t, 0);
      ticks.push(new Date(t).toISOString());
    }
    expect(ticks).toEqual([
      '2026-10-24T07:00:00.000Z',
      '2026-10-25T08:00:00.000Z',
      '2026-10-26T08:00:00.000Z',
      '2026-10-27T08:00:00.000Z',
    ]);
  });

  it('a cron tick is strictly after', () => {
    const s = parseSchedule('0 9 * * *', 'UTC', 5 * M, NOW);
    expect(nextTick(s, Date.parse('2026-10-24T09:00:00.000Z'), 0)).toBe(Date.parse('2026-10-25T09:00:00Z'));
    expect(nextTick(s, Date.parse('2026-10-24T08:59:59.999Z'), 0)).toBe(Date.parse('2026-10-24T09:00:00Z'));
  });

  it('cron weekdays skip the weekend in the caller’s zone', () => {
    const s = parseSchedule('0 9 * * 1-5', 'Asia/Tokyo', 5 * M, NOW);
    // Saturday noon UTC is Saturday 21:00 in Tokyo: the next weekday 09:00 is Monday, 00:00 UTC.
    expect(new Date(nextTick(s, NOW, 0)).toISOString()).toBe('2026-10-26T00:00:00.000Z');
  });
});

describe('checksPerHour', () => {
  it.each([
    [15 * M, 4],
    [7 * M, 9],
    [H, 1],
    [2 * H, 1],
    [30 * S, 120],
  ])('an interval of %d ms makes %d', (everyMs, n) => {
    expect(checksPerHour({ kind: 'interval', everyMs }, NOW)).toBe(n);
  });

  it.each([
    ['*/15 * * * *', 'UTC', 4],
    ['0 9 * * *', 'Europe/Paris', 1],
    ['0,5,10 9 * * 1', 'UTC', 3],
    // Busy only on Fridays, six days after NOW (a Saturday).
    ['*/5 9 * * 5', 'America/New_York', 12],
    ['50,55 8 * * *', 'UTC', 2],
    ['30 */20 * * * *', 'UTC', 3],
  ])('cron %j in %s makes at most %d', (pattern, timezone, n) => {
    const s = parseSchedule(pattern, timezone, 5 * M, NOW);
    expect(checksPerHour(s, NOW)).toBe(n);
  });

  it('dense crons: every minute, every 10 seconds', () => {
    expect(checksPerHour(parseSchedule('* * * * *', undefined, M, NOW), NOW)).toBe(60);
    expect(checksPerHour(parseSchedule('*/10 * * * * *', undefined, 10 * S, NOW), NOW)).toBe(360);
    // Dense only from 22:00 to 23:59 on Sundays, a week away less a day.
    expect(checksPerHour(parseSchedule('*/2 22,23 * * 0', 'Europe/Paris', M, NOW), NOW)).toBe(30);
  });

  it('counts ticks in a half-open hour: hourly ticks an hour apart count once', () => {
    expect(checksPerHour(parseSchedule('0 * * * *', undefined, 5 * M, NOW), NOW)).toBe(1);
    expect(checksPerHour(parseSchedule('59 * * * *', undefined, 5 * M, NOW), NOW)).toBe(1);
  });

  it('a cron that does not fire within the week still counts as one', () => {
    expect(checksPerHour(parseSchedule('0 9 1 1 *', undefined, 5 * M, NOW), NOW)).toBe(1);
  });
});

describe('agreement with BullMQ (getNextMillis, which upsertJobScheduler uses)', () => {
  const patterns = [
    '*/15 * * * *',
    '0 9 * * 1-5',
    '30 2 * * *',
    '0 */6 * * *',
    '15 10 1 * *',
    '0 30 8 * * 1',
  ];
  const zones = [undefined, 'Europe/Paris', 'America/New_York', 'Australia/Sydney', 'Asia/Kolkata'];
  // Around both 2026 DST changes in Europe and America, and a plain day.
  const starts = [
    '2026-03-08T05:00:00Z', // two hours before America/New_York springs forward
    '2026-03-28T23:00:00Z', // two hours before Europe springs forward
    '2026-10-24T23:30:00Z', // before Europe falls back
    '2026-06-15T09:00:00Z',
  ];

  for (const pattern of patterns) {
    for (const tz of zones) {
      it(`${pattern} in ${tz ?? 'UTC (default)'}`, () => {
        const s = parseSchedule(pattern, tz, 5 * M, NOW);
        for (const start of starts) {
          let ours = Date.parse(start);
          let theirs = ours;
          for (let i = 0; i < 15; i++) {
            ours = nextTick(s, ours, 0);
            theirs = getNextMillis(theirs, { pattern, tz: tz ?? 'UTC' })!;
            expect(new Date(ours).toISOString()).toBe(new Date(theirs).toISOString());
          }
        }
      });
    }
  }

  it('Australia/Lord_Howe (a half-hour DST change): cron-parser gets lost in April, both of us stop', () => {
    const pattern = '0 */6 * * *';
    const tz = 'Australia/Lord_Howe';
    const s = parseSchedule(pattern, tz, 5 * M, Date.parse('2026-01-10T00:00:00Z'));
    let ours = Date.parse('2026-03-28T20:00:00Z');
    let theirs: number | undefined = ours;
    for (let i = 0; i < 27; i++) {
      ours = nextTick(s, ours, 0);
      theirs = getNextMillis(theirs!, { pattern, tz });
      expect(ours).toBe(theirs);
    }
    expect(() => nextTick(s, ours, 0)).toThrow(/loop limit/);
    expect(getNextMillis(theirs!, { pattern, tz })).toBeUndefined();
    // parseSchedule refuses it when the change falls within the ticks it looks at.
    const r = refusal(() => parseSchedule(pattern, tz, 5 * M, Date.parse('2026-03-28T20:00:00Z')));
    expect(r.param).toBe('every');
    expect(r.message).toMatch(/cannot work out when/);
  });
});
