// Search and playlist details through the service the routes will call (services.youtube) against
// the replay server: the request bodies sent (query, filters as params, continuation tokens), one
// page with a next-page token of ours, pages followed up to a limit and counted for the price,
// tokens refused with a 400 naming them, the cached first page; a playlist's details sharing the
// cached first page with its listing, and 404 for a playlist that does not exist.
import { describe, expect, it } from 'vitest';
import type { AppError } from '../../../src/errors.js';
import { playlistBrowseId } from '../../../src/sources/youtube/listings.js';
import {
  decodePageToken,
  encodePageToken,
  maxSearchPages,
} from '../../../src/sources/youtube/search.fetch.js';
import { searchParams } from '../../../src/sources/youtube/search-params.js';
import type { TestApp } from '../../support/app.js';
import { useReplayApp } from '../../support/replay-app.js';
import {
  CAPTURED_QUERY,
  CONSTRUCTED_QUERY,
  startYouTubeReplay,
  type YouTubeReplay,
} from '../../support/youtube-replay.js';

let replay: YouTubeReplay;
let t: TestApp;

useReplayApp(
  { upstream: 'YOUTUBE', start: startYouTubeReplay, register: false, clearRequests: true },
  (stage) => {
    ({ replay, t } = stage);
  },
);

const youtube = () => t.services.youtube;
const bodies = (endpoint: string) =>
  replay.requests
    .filter((r) => r.path === `/youtubei/v1/${endpoint}`)
    .map(({ body }) => {
      const { context: _context, ...rest } = body ?? {};
      return rest;
    });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: AppError) => ({ code: err.code, details: err.details, message: err.message }),
  );

describe('search: one page', () => {
  it('answers the first page with a token of ours for the next, sending query and filters', async () => {
    const filters = { type: 'video', sortBy: 'views', features: ['hd', 'subtitles'] } as const;
    const outcome = await youtube().search({ query: `  ${CONSTRUCTED_QUERY} `, ...filters });
    expect(bodies('search')).toEqual([{ query: CONSTRUCTED_QUERY, params: searchParams(filters) }]);
    expect(replay.requests.every((r) => r.client === 'WEB')).toBe(true);
    expect(outcome).toMatchObject({ query: CONSTRUCTED_QUERY, totalResults: 4321, pages: 1 });
    expect(outcome.results.map((r) => r.id)).toEqual([
      'searchVid01',
      'UCc0nstructedChannel0001',
      'PLc0nstructedPlaylist2024',
      'searchLive1',
      'searchVid02',
    ]);
    expect(decodePageToken(outcome.nextPageToken!)).toEqual({
      query: CONSTRUCTED_QUERY,
      continuation: 'EpcDconstructedSearchPage2',
    });
  });

  it('goes on from a token alone: the next page, its query, no further token on the last page', async () => {
    const token = encodePageToken(CONSTRUCTED_QUERY, 'EpcDconstructedSearchPage2');
    const outcome = await youtube().search({ nextPageToken: token, type: 'channel' });
    expect(bodies('search')).toEqual([{ continuation: 'EpcDconstructedSearchPage2' }]);
    expect(outcome.query).toBe(CONSTRUCTED_QUERY);
    expect(outcome.results.map((r) => r.id)).toEqual([
      'searchVid02',
      'searchVid03',
      'PLc0nstructedPlaylist0002',
      'searchVid04',
    ]);
    expect(outcome).toMatchObject({ nextPageToken: null, pages: 1 });
  });

  it('sends no params for a plain search and keeps the first page cached', async () => {
    const first = await youtube().search({ query: CAPTURED_QUERY });
    const again = await youtube().search({ query: CAPTURED_QUERY, type: 'all', sortBy: 'relevance' });
    expect(bodies('search')).toEqual([{ query: CAPTURED_QUERY }]);
    expect(again.results).toEqual(first.results);
    expect(first.results).toHaveLength(20);
    expect(again.pages).toBe(1); // a cached page is still a page of results
  });

  it('answers no results (and no token) for a query that matches nothing', async () => {
    const outcome = await youtube().search({ query: 'nothing matches this' });
    expect(outcome).toEqual({
      query: 'nothing matches this',
      results: [],
      totalResults: 0,
      nextPageToken: null,
      pages: 1,
    });
  });
});

describe('search: with a limit', () => {
  it('follows continuations until the limit, counting the pages fetched', async () => {
    const outcome = await youtube().search({ query: CAPTURED_QUERY, limit: 30 });
    expect(outcome.results).toHaveLength(30);
    expect(outcome.pages).toBe(2);
    expect(outcome.nextPageToken).toBeNull();
    expect(bodies('search').slice(-1)).toEqual([{ continuation: '<firstContinuationToken>' }]);
  });

  it('stops when the platform repeats a token, with every distinct result on the way', async () => {
    const outcome = await youtube().search({ query: CAPTURED_QUERY, limit: 1000 });
    // 20 + 18 + 19: the third page hands back the token that led to it.
    expect(outcome.results.length).toBe(new Set(outcome.results.map((r) => r.id)).size);
    expect(outcome.results).toHaveLength(57);
    expect(outcome.pages).toBe(3);
    expect(bodies('search').filter((b) => 'continuation' in b)).toHaveLength(2);
  });

  it('leaves out a result a later page repeats, and stops on the last page', async () => {
    const outcome = await youtube().search({ query: CONSTRUCTED_QUERY, limit: 50 });
    expect(outcome.results.map((r) => r.id)).toEqual([
      'searchVid01',
      'UCc0nstructedChannel0001',
      'PLc0nstructedPlaylist2024',
      'searchLive1',
      'searchVid02',
      'searchVid03',
      'PLc0nstructedPlaylist0002',
      'searchVid04',
    ]);
    expect(outcome.pages).toBe(2);
  });

  it('caps the pages a limit may fetch (the most the route holds): one more than ten results a page', () => {
    expect([maxSearchPages(), maxSearchPages(1), maxSearchPages(30), maxSearchPages(1000)]).toEqual([
      1, 2, 4, 101,
    ]);
  });
});

describe('search: bad input', () => {
  it.each([
    ['query', { query: '   ' }],
    ['query', { query: 'x'.repeat(501) }],
    ['limit', { query: 'a', limit: 0 }],
    ['limit', { query: 'a', limit: 1001 }],
    ['limit', { query: 'a', limit: 2.5 }],
    ['nextPageToken', { nextPageToken: 'not ours' }],
    ['nextPageToken', { nextPageToken: `ufs1.${Buffer.from('{"q":1}').toString('base64url')}` }],
    ['nextPageToken', { nextPageToken: `ufs1.${Buffer.from('not json').toString('base64url')}` }],
    ['nextPageToken', { nextPageToken: `ufs1.${'A'.repeat(9000)}` }],
    ['type', { query: 'a', type: 'show' }],
  ])('refuses %s with a 400 naming it, before asking the platform', async (param, request) => {
    expect(await failure(youtube().search(request as never))).toMatchObject({
      code: 'invalid_request',
      details: param,
    });
    expect(bodies('search')).toEqual([]);
  });

  it('refuses a well-formed token the platform does not take with a 400 naming it (not a 502)', async () => {
    const token = encodePageToken('x', 'a-token-the-platform-never-issued');
    expect(await failure(youtube().search({ nextPageToken: token }))).toMatchObject({
      code: 'invalid_request',
      details: 'nextPageToken',
    });
    expect(bodies('search')).toEqual([{ continuation: 'a-token-the-platform-never-issued' }]);
  });
});

describe('playlist details', () => {
  it('answers the details of a captured playlist by id or URL', async () => {
    const id = 'PLzMcBGfZo4-mP7qA9cagf68V06sko5otr';
    const details = await youtube().playlist(`https://www.youtube.com/playlist?list=${id}`);
    expect(details).toMatchObject({
      id,
      title: 'Python Machine Learning Tutorials',
      videoCount: 12,
      viewCount: 819321,
      lastUpdated: '2020-03-11T00:00:00.000Z',
      channel: { id: 'UC4JX40jDee_tINbkjycV4Sg', name: 'Tech With Tim' },
    });
    expect(Object.keys(details).sort()).toEqual(
      ['channel', 'description', 'id', 'lastUpdated', 'thumbnail', 'title', 'videoCount', 'viewCount'].sort(),
    );
    expect(bodies('browse')).toEqual([{ browseId: playlistBrowseId(id) }]);
  });

  it('shares the cached first page with the listing: one browse for both', async () => {
    const id = 'PLGzC4gTcebz_DtErBUKNdZZdPwkb5e-pr';
    const [details, lists] = await Promise.all([
      youtube().playlist(id),
      youtube().playlistVideos(id, { limit: 100 }),
    ]);
    expect(details.videoCount).toBe(4);
    expect(lists.videoIds).toHaveLength(4);
    expect(bodies('browse')).toEqual([{ browseId: `VL${id}` }]);
  });

  it('404 for a playlist the platform does not have; 400 for a string that is no playlist', async () => {
    expect(await failure(youtube().playlist('PLdoesNotExistAtAll0000000000000000'))).toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('The playlist does not exist.'),
    });
    expect(await failure(youtube().playlist('no playlist here!'))).toMatchObject({ code: 'invalid_request' });
  });
});
