// A playlist's own details from its page: the captured 2020–21 and 2023 sidebars and headers, the
// constructed 2024+ page header, and the "last updated" texts.
import { describe, expect, it } from 'vitest';
import { parsePlaylistPage } from '../../../src/sources/youtube/listings.js';
import { parsePlaylistInfo, parseUpdated } from '../../../src/sources/youtube/playlist.parse.js';
import { captureInitialData, constructed } from '../../support/youtube-captures.js';

const NOW = Date.parse('2021-01-15T12:00:00Z');

describe('parsePlaylistInfo on captures', () => {
  it('reads a 2023 playlist: header and sidebar (title, description, counts, date, owner)', () => {
    const info = parsePlaylistInfo(
      captureInitialData('pytube/playlist-PLzMcBGfZo4-mP7qA9cagf68V06sko5otr.html'),
      NOW,
    );
    expect(info).toEqual({
      title: 'Python Machine Learning Tutorials',
      description: expect.stringMatching(/^This series starts out teaching basic machine learning concepts/),
      videoCount: 12,
      viewCount: 819321,
      lastUpdated: '2020-03-11T00:00:00.000Z', // "Last updated on Mar 11, 2020"
      thumbnail: expect.stringMatching(/^https:\/\/i\.ytimg\.com\/vi\/ujTCoH21GlA\/hqdefault\.jpg\?/),
      channel: { id: 'UC4JX40jDee_tINbkjycV4Sg', name: 'Tech With Tim' },
    });
  });

  it('takes the widest thumbnail the page shows', () => {
    const info = parsePlaylistInfo(
      captureInitialData('pytube/playlist-PLS1QulWo1RIaJECMeUT4LFwJ-ghgoSH6n.html'),
      NOW,
    );
    // The sidebar lists 168, 196, 246 and 336 pixels wide; the 336 one has this signature.
    expect(info.thumbnail).toMatch(/rs=AOn4CLDBnA6Wc8pNH28aunHIIXtPElHfrg$/);
    expect(info).toMatchObject({
      videoCount: 233,
      viewCount: 4805910,
      lastUpdated: '2023-04-18T00:00:00.000Z',
    });
  });

  it('reads 2020–21 sidebars: an uploads playlist without description, "Updated today"', () => {
    const uploads = parsePlaylistInfo(captureInitialData('node-ytpl/firstpage_01.html'), NOW);
    expect(uploads).toMatchObject({
      title: 'Uploads from NoCopyrightSounds',
      description: null,
      videoCount: 849,
      viewCount: 63990588,
      lastUpdated: '2021-01-15T00:00:00.000Z',
      channel: { id: 'UC_aEa8K-EOJ3D6gOs7HcyNg', name: 'NoCopyrightSounds' },
    });
    const short = parsePlaylistInfo(captureInitialData('node-ytpl/firstpage_04.html'), NOW);
    expect(short).toMatchObject({
      description: null, // the sidebar's description is an empty object
      videoCount: 4,
      viewCount: 4413,
      lastUpdated: '2020-11-16T00:00:00.000Z',
      channel: { id: 'UCc0vR4YlrUprAX_AMylgOvg', name: 'BELLA PING MUSIC CHANNEL' },
    });
  });

  it('reads the 2024+ page header (constructed): title, rows, owner link, hero image', () => {
    const info = parsePlaylistInfo(constructed('playlist-2024.json'), NOW);
    expect(info).toEqual({
      title: 'Constructed playlist of 2024',
      description: 'A playlist assembled by hand to stand for the 2024+ header.',
      videoCount: 2,
      viewCount: 1234,
      lastUpdated: '2021-01-12T12:00:00.000Z', // "Updated 3 days ago"
      thumbnail: 'https://i.ytimg.com/vi/lockupVid01/hqdefault.jpg?constructed=2',
      channel: { id: 'UCc0nstructedChannel0001', name: 'Constructed Channel' },
    });
  });

  it('is part of a parsed playlist page, and absent from pages that are no playlist', () => {
    const page = parsePlaylistPage(constructed('playlist-2024.json'), NOW);
    expect(page.found && page.info.videoCount).toBe(2);
    expect(page.found && page.ids).toEqual(['lockupVid01', 'lockupVid02']);
    expect(parsePlaylistPage(captureInitialData('node-ytpl/notexistspage.html'), NOW)).not.toHaveProperty(
      'info',
    );
  });

  it('answers null for every field a page without them lacks', () => {
    expect(parsePlaylistInfo({ contents: {} }, NOW)).toEqual({
      title: null,
      description: null,
      videoCount: null,
      viewCount: null,
      lastUpdated: null,
      thumbnail: null,
      channel: { id: null, name: null },
    });
  });
});

describe('parseUpdated', () => {
  it.each([
    ['Last updated on Mar 11, 2020', '2020-03-11T00:00:00.000Z'],
    ['Last updated on 11 Mar 2020', '2020-03-11T00:00:00.000Z'],
    ['Updated today', '2021-01-15T00:00:00.000Z'],
    ['Updated yesterday', '2021-01-14T00:00:00.000Z'],
    ['Updated 3 days ago', '2021-01-12T12:00:00.000Z'],
    ['Updated 2 weeks ago', '2021-01-01T12:00:00.000Z'],
  ])('%s → %s', (text, iso) => {
    expect(parseUpdated(text, NOW)).toBe(iso);
  });

  it('answers null for text that names no date', () => {
    expect(parseUpdated('Playlist', NOW)).toBeNull();
    expect(parseUpdated('Last updated on Blursday 99, 2020', NOW)).toBeNull();
    expect(parseUpdated(null, NOW)).toBeNull();
  });
});
