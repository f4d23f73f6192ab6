// The search filters as the platform takes them: one protobuf message, base64-encoded, sent as the
// search request's `params` (the `sp=` of a results URL). Field numbers and values are those of the
// platform's own filter menu (searchFilterRenderer links in the captured results pages):
//   1 sort (varint)                        rating 1, date 2, views 3 (relevance: absent)
//   2 filters (message):
//       1 upload date                      hour 1, today 2, week 3, month 4, year 5
//       2 type                             video 1, channel 2, playlist 3, movie 4
//       3 duration                         short 1 (< 4 min), long 2 (> 20 min), medium 3 (4–20 min)
//       4 hd · 5 subtitles · 6 creative commons · 7 3d · 8 live · 14 4k · 15 360 · 23 location ·
//       25 hdr · 26 vr180                  booleans (1)
// The 2020–21 menu captured had no medium duration; 3 is what the platform's menu has used since. Pure.
import { invalid } from '../../errors.js';

export const SEARCH_TYPES = ['all', 'video', 'channel', 'playlist', 'movie'] as const;
export const SEARCH_UPLOAD_DATES = ['all', 'hour', 'today', 'week', 'month', 'year'] as const;
export const SEARCH_DURATIONS = ['all', 'short', 'medium', 'long'] as const;
export const SEARCH_SORTS = ['relevance', 'rating', 'date', 'views'] as const;
export const SEARCH_FEATURES = [
  'hd',
  'subtitles',
  'creative-commons',
  '3d',
  'live',
  '4k',
  '360',
  'location',
  'hdr',
  'vr180',
] as const;

export type SearchType = (typeof SEARCH_TYPES)[number];
export type SearchUploadDate = (typeof SEARCH_UPLOAD_DATES)[number];
export type SearchDuration = (typeof SEARCH_DURATIONS)[number];
export type SearchSort = (typeof SEARCH_SORTS)[number];
export type SearchFeature = (typeof SEARCH_FEATURES)[number];

export interface SearchFilters {
  type?: SearchType;
  uploadDate?: SearchUploadDate;
  duration?: SearchDuration;
  sortBy?: SearchSort;
  features?: readonly SearchFeature[];
}

const SORT: Record<SearchSort, number> = { relevance: 0, rating: 1, date: 2, views: 3 };
const UPLOAD_DATE: Record<SearchUploadDate, number> = {
  all: 0,
  hour: 1,
  today: 2,
  week: 3,
  month: 4,
  year: 5,
};
const TYPE: Record<SearchType, number> = { all: 0, video: 1, channel: 2, playlist: 3, movie: 4 };
const DURATION: Record<SearchDuration, number> = { all: 0, short: 1, long: 2, medium: 3 };
const FEATURE_FIELD: Record<SearchFeature, number> = {
  hd: 4,
  subtitles: 5,
  'creative-commons': 6,
  '3d': 7,
  live: 8,
  '4k': 14,
  '360': 15,
  location: 23,
  hdr: 25,
  vr180: 26,
};

function varint(value: number): number[] {
  const out: number[] = [];
  let v = value;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}

/** One varint field (wire type 0); nothing for 0, protobuf's default. */
const varintField = (field: number, value: number): number[] =>
  value === 0 ? [] : [...varint(field << 3), ...varint(value)];

/** One embedded message (wire type 2); nothing when it is empty. */
const messageField = (field: number, body: number[]): number[] =>
  body.length === 0 ? [] : [...varint((field << 3) | 2), ...varint(body.length), ...body];

/** `value` if it is one of `allowed`, else a 400 naming the parameter. */
function pick<T extends string>(
  param: string,
  value: string | undefined,
  allowed: Record<T, number>,
): number {
  if (value === undefined) return 0;
  if (!Object.hasOwn(allowed, value)) {
    throw invalid(param, `must be one of ${Object.keys(allowed).join(', ')}`);
  }
  return allowed[value as T];
}

/** The `params` of a search with these filters; '' when none is set (a plain search). */
export function searchParams(filters: SearchFilters): string {
  const features = [...new Set(filters.features ?? [])].map((f) => pick('features', f, FEATURE_FIELD));
  const inner = [
    ...varintField(1, pick('uploadDate', filters.uploadDate, UPLOAD_DATE)),
    ...varintField(2, pick('type', filters.type, TYPE)),
    ...varintField(3, pick('duration', filters.duration, DURATION)),
    ...features.sort((a, b) => a - b).flatMap((field) => varintField(field, 1)),
  ];
  const bytes = [...varintField(1, pick('sortBy', filters.sortBy, SORT)), ...messageField(2, inner)];
  return Buffer.from(bytes).toString('base64');
}
