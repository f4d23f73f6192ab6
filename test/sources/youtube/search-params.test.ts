// The search filters encoded as the platform's `params`: each single filter must come out exactly
// as the platform's own filter menu links it (read from the captured results page), and
// combinations must decode back to every field set.
import { describe, expect, it } from 'vitest';
import type { AppError } from '../../../src/errors.js';
import { type SearchFilters, searchParams } from '../../../src/sources/youtube/search-params.js';
import { dig, findAll, textOf } from '../../../src/sources/youtube/tree.js';
import { capturedSearch } from '../../support/youtube-captures.js';

/** label → params of every entry of the captured page's filter menu (none for the selected sort). */
function capturedMenu(): Map<string, string> {
  const menu = new Map<string, string>();
  for (const entry of findAll(capturedSearch('firstpage_01.html.static'), 'searchFilterRenderer')) {
    const params = dig(entry, 'navigationEndpoint', 'searchEndpoint', 'params');
    if (typeof params === 'string') menu.set(textOf(dig(entry, 'label'))!, decodeURIComponent(params));
  }
  return menu;
}

/** Our filter for each label of the 2020 menu (Show and Purchased have no counterpart). */
const LABELS: Record<string, SearchFilters> = {
  'Last hour': { uploadDate: 'hour' },
  Today: { uploadDate: 'today' },
  'This week': { uploadDate: 'week' },
  'This month': { uploadDate: 'month' },
  'This year': { uploadDate: 'year' },
  Video: { type: 'video' },
  Channel: { type: 'channel' },
  Playlist: { type: 'playlist' },
  Movie: { type: 'movie' },
  'Short (< 4 minutes)': { duration: 'short' },
  'Long (> 20 minutes)': { duration: 'long' },
  Live: { features: ['live'] },
  '4K': { features: ['4k'] },
  HD: { features: ['hd'] },
  'Subtitles/CC': { features: ['subtitles'] },
  'Creative Commons': { features: ['creative-commons'] },
  '360°': { features: ['360'] },
  VR180: { features: ['vr180'] },
  '3D': { features: ['3d'] },
  HDR: { features: ['hdr'] },
  Location: { features: ['location'] },
  'Upload date': { sortBy: 'date' },
  'View count': { sortBy: 'views' },
  Rating: { sortBy: 'rating' },
};

/** A protobuf message as field → values (varints, or nested messages decoded the same way). */
type Decoded = Map<number, Array<number | Decoded>>;
function decode(bytes: Buffer): Decoded {
  const out: Decoded = new Map();
  let at = 0;
  const varint = () => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[at++]!;
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
      shift += 7;
    }
  };
  while (at < bytes.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key % 8;
    let value: number | Decoded;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const length = varint();
      value = decode(bytes.subarray(at, at + length));
      at += length;
    } else throw new Error(`unexpected wire type ${wire}`);
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}
const decoded = (filters: SearchFilters) => decode(Buffer.from(searchParams(filters), 'base64'));

describe('searchParams', () => {
  it("encodes every single filter exactly as the platform's own menu links it", () => {
    const menu = capturedMenu();
    expect(menu.size).toBe(26);
    const compared = Object.entries(LABELS).map(([label, filters]) => [label, searchParams(filters)]);
    expect(compared).toEqual(Object.keys(LABELS).map((label) => [label, menu.get(label)]));
  });

  it('is empty for a plain search (no filter, or only the defaults)', () => {
    expect(searchParams({})).toBe('');
    expect(
      searchParams({ type: 'all', uploadDate: 'all', duration: 'all', sortBy: 'relevance', features: [] }),
    ).toBe('');
  });

  it('encodes medium duration as 3 (the 4–20 minutes entry of the menu since 2023)', () => {
    expect(decoded({ duration: 'medium' }).get(2)).toEqual([new Map([[3, [3]]])]);
  });

  it('combines sort, filters and features in one message, each feature once', () => {
    const message = decoded({
      sortBy: 'views',
      type: 'video',
      uploadDate: 'month',
      duration: 'long',
      features: ['hdr', 'hd', 'subtitles', 'hd'],
    });
    expect(message.get(1)).toEqual([3]);
    expect(message.get(2)).toEqual([
      new Map([
        [1, [4]],
        [2, [1]],
        [3, [2]],
        [4, [1]],
        [5, [1]],
        [25, [1]],
      ]),
    ]);
  });

  it.each([
    ['type', { type: 'show' }],
    ['uploadDate', { uploadDate: 'decade' }],
    ['duration', { duration: 'epic' }],
    ['sortBy', { sortBy: 'random' }],
    ['features', { features: ['hd', 'purchased'] }],
    ['features', { features: ['__proto__'] }],
  ])('refuses an unknown value of %s with a 400 naming it', (param, filters) => {
    let error: AppError | null = null;
    try {
      searchParams(filters as SearchFilters);
    } catch (err) {
      error = err as AppError;
    }
    expect(error).toMatchObject({ code: 'invalid_request', details: param });
    expect(error?.message).toContain(`'${param}'`);
  });
});
