// Durations as people write them in settings and schedules: `300` (seconds), `30s`, `5m`, `1h30m`,
// `1d`, `2w`, `250ms`, or ISO 8601 `PT15M`. A leaf: config.ts reads its duration settings with it, and
// monitors their intervals.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const UNITS: Record<string, number> = { w: 7 * DAY, d: DAY, h: HOUR, m: MINUTE, s: SECOND };

/**
 * A duration setting or interval as milliseconds, or null if it is not one: `300` (seconds), `30s`,
 * `5m`, `1h30m`, `1d`, `2w`, or ISO 8601 `PT15M`, `P1DT2H`, `P1W`. Whole numbers only, and no years or
 * months (their length varies). Case-insensitive.
 */
export function parseDuration(text: string): number | null {
  const t = text.trim().toLowerCase();
  let ms: number;
  if (/^\d+$/.test(t)) ms = Number(t) * SECOND;
  // Milliseconds, for settings and tests that need ticks closer than a second.
  else if (/^\d+ms$/.test(t)) ms = Number(t.slice(0, -2));
  else if (/^(\d+[wdhms])+$/.test(t)) ms = sumUnits(t);
  else {
    const iso = /^p(?:(\d+)w)?(?:(\d+)d)?(?:t(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?)?$/.exec(t);
    // `P` and `PT` alone match the pattern but name no duration.
    if (!iso || t === 'p' || t.endsWith('t')) return null;
    const [, w = '0', d = '0', h = '0', m = '0', s = '0'] = iso;
    ms = Number(w) * UNITS.w! + Number(d) * DAY + Number(h) * HOUR + Number(m) * MINUTE + Number(s) * SECOND;
  }
  return Number.isSafeInteger(ms) ? ms : null;
}

function sumUnits(t: string): number {
  let ms = 0;
  for (const [, n, unit] of t.matchAll(/(\d+)([wdhms])/g)) ms += Number(n) * UNITS[unit!]!;
  return ms;
}
