// Search answers → results: the captured 2020 results page (videos; a shelf and refinements to
// skip), its captured continuations (item-section and rich-grid layouts), captured single channel,
// playlist, mix, film, live and premiere renderers, and the constructed 2024+ answers.
import { describe, expect, it } from 'vitest';
import {
  parseDuration,
  parseSearchPage,
  type SearchResult,
} from '../../../src/sources/youtube/search.parse.js';
import { findAll } from '../../../src/sources/youtube/tree.js';
import { capturedSearch, constructed } from '../../support/youtube-captures.js';

const NOW = Date.parse('2020-12-11T00:00:00Z');
const renderer = (name: string) =>
  parseSearchPage({ contents: [capturedSearch(`renderers/${name}.json`)] }, NOW);
const only = (name: string): SearchResult => {
  const page = renderer(name);
  expect(page.results).toHaveLength(1);
  return page.results[0]!;
};

describe('parseSearchPage on the captured results page', () => {
  const data = capturedSearch('firstpage_01.html.static');
  const page = parseSearchPage(data, NOW);

  it('lists the 20 results in order, leaving out the 10 videos of the suggestion shelf', () => {
    expect(findAll(data, 'videoRenderer')).toHaveLength(30);
    expect(page.results).toHaveLength(20);
    expect(page.results.every((r) => r.type === 'video')).toBe(true);
    const shelf = findAll(findAll(data, 'shelfRenderer'), 'videoRenderer').map(
      (v) => (v as { videoId: string }).videoId,
    );
    expect(shelf).toHaveLength(10);
    expect(page.results.map((r) => r.id)).not.toEqual(expect.arrayContaining([shelf[0]]));
    expect(page.results[0]!.id).toBe('7JKFE03ix6E');
  });

  it('reads a video: title, snippet, widest thumbnail, duration, exact views, age, channel', () => {
    expect(page.results[0]).toEqual({
      type: 'video',
      id: '7JKFE03ix6E',
      title: 'Coronavirus-Test: Wie wird Sars-CoV-2 nachgewiesen? | Visite | NDR',
      // The platform cuts snippets with a no-break space before the dots.
      description:
        'Um eine Corona-Infektion nachzuweisen, wird ein Test auf das Virus Sars-CoV-2 durchgeführt. Wie läuft der sogenannte\u00a0...',
      thumbnail: expect.stringMatching(/^https:\/\/i\.ytimg\.com\/vi\/7JKFE03ix6E\/hqdefault\.jpg\?sqp=/),
      duration: 269, // "4:29"
      viewCount: 42563,
      uploadDate: '2020-04-15T00:00:00.000Z', // "8 months ago", counted back from NOW
      channel: {
        id: 'UCAKB9wGGRccBDrvbbbmgetw',
        name: 'NDR Ratgeber',
        thumbnail: expect.stringMatching(/^https:\/\/yt3\.ggpht\.com\//),
      },
      isLive: false,
    });
  });

  it('gives every video of the page its id, title, duration, views and channel', () => {
    for (const r of page.results) {
      expect(r).toMatchObject({
        type: 'video',
        id: expect.stringMatching(/^[\w-]{11}$/),
        title: expect.any(String),
        duration: expect.any(Number),
        viewCount: expect.any(Number),
        channel: { id: expect.stringMatching(/^UC[\w-]{22}$/), name: expect.any(String) },
      });
    }
  });

  it("answers the platform's estimate and the (scrubbed) continuation token", () => {
    expect(page.estimatedResults).toBe(322671961);
    expect(page.continuation).toBe('<firstContinuationToken>');
  });
});

describe('parseSearchPage on captured continuations', () => {
  it('reads an item-section continuation (appendContinuationItemsAction)', () => {
    const page = parseSearchPage(capturedSearch('secondpage_01.html.static'), NOW);
    expect(page.results).toHaveLength(18);
    expect(page.continuation).toBe('<secondContinuationToken>');
    expect(page.estimatedResults).toBe(22247818);
  });

  it('reads a rich-grid continuation, skipping its shelf', () => {
    const data = capturedSearch('secondpage_02.html.static');
    const page = parseSearchPage(data, NOW);
    const inShelf = findAll(findAll(data, 'richShelfRenderer'), 'videoRenderer');
    expect(findAll(data, 'videoRenderer')).toHaveLength(29);
    expect(page.results).toHaveLength(29 - inShelf.length);
    expect(page.continuation).toBe('<secondContinuationToken>');
  });
});

describe('parseSearchPage on captured single results', () => {
  it('a channel: exact and abbreviated subscriber counts, video count, avatar made absolute', () => {
    expect(only('channelRenderer_01')).toEqual({
      type: 'channel',
      id: 'UCMUnMdqXX73Z9kxC8TGdv1Q',
      title: 'SAVE YHTYE',
      name: 'SAVE YHTYE',
      handle: null,
      description: null,
      thumbnail: expect.stringMatching(/^https:\/\/yt3\.ggpht\.com\/.*=s176-/),
      subscriberCount: 545,
      videoCount: 8,
    });
    expect(only('channelRenderer_02')).toMatchObject({
      id: 'UC_aEa8K-EOJ3D6gOs7HcyNg',
      subscriberCount: 28_700_000,
      videoCount: 850,
      description: expect.stringMatching(/^NoCopyrightSounds is a copyright free/),
    });
  });

  it('a playlist with a linked owner, and an album whose owner is plain text', () => {
    expect(only('playlistRenderer_01')).toEqual({
      type: 'playlist',
      id: 'PLPoH32WKos_taVumTjN8siSgwEmUIqtsp',
      title: 'Poju',
      description: null,
      thumbnail: expect.stringMatching(/^https:\/\/i\.ytimg\.com\/vi\/St6_PL-xQNw\//),
      videoCount: 6,
      channel: { id: 'UCbNJhrRJDJYei4iZ2dkqEhw', name: 'akemonstro', thumbnail: null },
    });
    expect(only('playlistRenderer_03')).toMatchObject({
      videoCount: 10,
      channel: { id: null, name: 'Jazz Tunes' },
    });
  });

  it('a mix: a playlist of no fixed length and no channel', () => {
    expect(only('radioRenderer_01')).toMatchObject({
      type: 'playlist',
      id: 'RDh6vUBjGTYxQ',
      title: 'Mix - Dada-Dii',
      videoCount: null,
      channel: { id: null, name: null, thumbnail: null },
    });
  });

  it('a film is a video; a stream live now has no duration and no view count (it shows watchers)', () => {
    expect(only('movieRenderer_01')).toMatchObject({ type: 'video', id: 'rx-gQVUeSR8', duration: 7900 });
    expect(only('videoRenderer_04')).toMatchObject({
      type: 'video',
      id: 'taiU70ddmAE',
      isLive: true,
      duration: null,
      viewCount: null,
      uploadDate: null,
    });
  });

  it('an upcoming premiere: no views, no age', () => {
    expect(only('videoRenderer_06')).toMatchObject({ id: 'D1IeDyG-pgM', viewCount: null, uploadDate: null });
  });
});

describe('parseSearchPage on the constructed 2024+ answers', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads videos, a channel in the 2024 arrangement and a playlist lockup; skips ads and shelves', () => {
    const page = parseSearchPage(constructed('search-2024-first.json'), now);
    expect(page.results.map((r) => `${r.type}:${r.id}`)).toEqual([
      'video:searchVid01',
      'channel:UCc0nstructedChannel0001',
      'playlist:PLc0nstructedPlaylist2024',
      'video:searchLive1',
      'video:searchVid02',
    ]);
    expect(page.results[1]).toEqual({
      type: 'channel',
      id: 'UCc0nstructedChannel0001',
      title: 'Constructed Channel',
      name: 'Constructed Channel',
      handle: '@ConstructedChannel',
      description: 'A channel made up for the search fixtures.',
      thumbnail: 'https://yt3.ggpht.com/constructed-avatar-1=s176-c-k-c0x00ffffff-no-rj-mo',
      subscriberCount: 12_300, // shown where the video count used to be
      videoCount: null,
    });
    expect(page.results[2]).toEqual({
      type: 'playlist',
      id: 'PLc0nstructedPlaylist2024',
      title: 'Constructed playlist of 2024',
      description: null,
      thumbnail: 'https://i.ytimg.com/vi/lockupVid01/hqdefault.jpg?constructed=playlist-large',
      videoCount: 2,
      channel: { id: 'UCc0nstructedChannel0001', name: 'Constructed Channel', thumbnail: null },
    });
    expect(page.results[4]).toMatchObject({
      duration: 3723,
      viewCount: 0,
      uploadDate: '2025-12-11T00:00:00.000Z',
    });
    expect(page).toMatchObject({ continuation: 'EpcDconstructedSearchPage2', estimatedResults: 4321 });
  });

  it('reads a video lockup: duration badge, views and age from metadata rows', () => {
    const page = parseSearchPage(constructed('search-2024-next.json'), now);
    expect(page.continuation).toBeNull();
    expect(page.results.at(-1)).toEqual({
      type: 'video',
      id: 'searchVid04',
      title: 'Constructed search result four (a video lockup)',
      description: null,
      thumbnail: 'https://i.ytimg.com/vi/searchVid04/hqdefault.jpg?constructed=lockup',
      duration: 754,
      viewCount: 45_000,
      uploadDate: '2025-12-02T00:00:00.000Z',
      channel: {
        id: 'UCc0nstructedChannel0001',
        name: 'Constructed Channel',
        thumbnail: 'https://yt3.ggpht.com/constructed-avatar-1=s68',
      },
      isLive: false,
    });
  });

  it('answers no results and no token for an answer with nothing in it', () => {
    expect(parseSearchPage({ responseContext: {} }, now)).toEqual({
      results: [],
      continuation: null,
      estimatedResults: null,
    });
  });
});

describe('parseDuration', () => {
  it.each([
    ['0:59', 59],
    ['4:05', 245],
    ['1:02:03', 3723],
  ])('%s → %i s', (text, seconds) => expect(parseDuration(text)).toBe(seconds));

  it('answers null for anything else', () => {
    for (const text of ['LIVE', '', '1:2:3:4', 'SHORTS', null]) expect(parseDuration(text)).toBeNull();
  });
});
