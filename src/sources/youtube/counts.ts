// Numbers and dates the platform only shows as display text: "1.2M subscribers", "12,345 views",
// "No views", "1,66 M d’abonnés", "66.031 Aufrufe", "2 years ago". Requests ask for English, but
// pages served from another region or cached with another language still arrive, so the common
// European separators and abbreviations are understood too.

// Abbreviations and words after a number, lower-cased and without a trailing dot.
const MULTIPLIERS: Record<string, number> = {
  k: 1e3,
  thousand: 1e3,
  tsd: 1e3,
  mil: 1e3, // es/pt "1,2 mil"
  тыс: 1e3,
  千: 1e3,
  m: 1e6,
  million: 1e6,
  millions: 1e6,
  mio: 1e6,
  mln: 1e6,
  mn: 1e6,
  mi: 1e6, // pt "1,2 mi"
  млн: 1e6,
  b: 1e9,
  bn: 1e9,
  billion: 1e9,
  billions: 1e9,
  md: 1e9, // fr "1,2 Md"
  mrd: 1e9,
  mld: 1e9,
  bi: 1e9,
  млрд: 1e9,
  lakh: 1e5,
  crore: 1e7,
  万: 1e4,
  億: 1e8,
  만: 1e4,
  억: 1e8,
};

// "No views", "No comments", "Aucune vue", "Keine Aufrufe", …: zero written as a word.
const ZERO_WORDS = /^(?:no|none|aucune?|keine?|ningun[oa]?|ningún|nenhum[a]?|nessun[oa]?|geen)\b/i;

// Digits with grouping or decimal separators: "1,234,567", "66.031", "1 234 567", "1’234".
const NUMBER = /(\d+(?:[.,'’\u00a0\u202f\u2009 ]\d+)*)\s*([^\s\d.,]+\.?)?/u;

/**
 * The integer a count text stands for, or null when the text holds no count. Abbreviated counts are
 * rounded as shown ("1.2M" → 1200000); whole counts keep every digit whatever the grouping mark.
 */
export function parseCount(text: string | null | undefined): number | null {
  if (typeof text !== 'string') return null;
  const s = text.trim();
  if (s === '') return null;
  if (ZERO_WORDS.test(s)) return 0;
  const m = NUMBER.exec(s);
  if (!m) return null;
  const digits = m[1]!;
  const word = (m[2] ?? '').toLowerCase().replace(/\.$/, '');
  const multiplier = MULTIPLIERS[word];
  if (multiplier === undefined) {
    // A whole count: every separator is a grouping mark.
    const n = Number(digits.replace(/\D/g, ''));
    return Number.isSafeInteger(n) ? n : null;
  }
  // An abbreviated count: the last separator (if any) is the decimal mark.
  const parts = digits.split(/[.,'’\u00a0\u202f\u2009 ]/);
  const fraction = parts.length > 1 ? parts.pop()! : '';
  const value = Number(`${parts.join('')}${fraction ? `.${fraction}` : ''}`) * multiplier;
  return Number.isFinite(value) ? Math.round(value) : null;
}

const UNIT_MS: Record<string, number> = {
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 30 * 86_400_000,
  year: 365 * 86_400_000,
};

const RELATIVE = /(\d+)\s*(second|sec|minute|min|hour|hr|day|week|wk|month|mo|year|yr)s?\b/i;
const UNIT_ALIASES: Record<string, string> = {
  sec: 'second',
  min: 'minute',
  hr: 'hour',
  wk: 'week',
  mo: 'month',
  yr: 'year',
};

/**
 * An ISO 8601 instant for a relative English time ("3 days ago", "1 year ago (edited)",
 * "Streamed 2 hours ago") counted back from `nowMs`; months are 30 days and years 365, so the
 * result is as approximate as the text. Null when the text is not such a phrase.
 */
export function parseRelativeTime(text: string | null | undefined, nowMs: number): string | null {
  if (typeof text !== 'string') return null;
  if (/\bjust now\b|\bmoments? ago\b/i.test(text)) return new Date(nowMs).toISOString();
  const m = RELATIVE.exec(text);
  if (!m) return null;
  const unit = m[2]!.toLowerCase();
  const ms = UNIT_MS[UNIT_ALIASES[unit] ?? unit];
  if (ms === undefined) return null;
  const at = nowMs - Number(m[1]) * ms;
  return Number.isFinite(at) ? new Date(at).toISOString() : null;
}
