// Video ids out of every listing layout: the captured 2023 rich grid (videos), 2023 reels (shorts),
// 2020 grid shelves, playlists with and without continuation, a browse continuation answer, the
// playlist-not-found and landing pages; and the 2024+ lockup layouts from constructed fixtures.
import { describe, expect, it } from 'vitest';
import {
  CHANNEL_TABS,
  channelTabBrowse,
  collectVideos,
  parseBrowseContinuation,
  parseChannelTab,
  parsePlaylistPage,
  playlistBrowseId,
  uploadsPlaylistId,
} from '../../../src/sources/youtube/listings.js';
import { dig, findAll } from '../../../src/sources/youtube/tree.js';
import { captureInitialData, captureJson, constructed } from '../../support/youtube-captures.js';

const VIDEOS_TAB = 'pytube/channel-UCs6nmQViDpUw0nuIx9c_WvA-videos.html';
const SHORTS_TAB = 'pytube/channel-UCoLrcjPV5PbUrUyXq5mjc_A-shorts.html';

describe('parseChannelTab on captures', () => {
  it('lists the 30 videos of a 2023 Videos tab (richGridRenderer > richItemRenderer > videoRenderer)', () => {
    const page = parseChannelTab(captureInitialData(VIDEOS_TAB));
    expect(page.tab).toBe('videos');
    expect(page.tabs).toEqual([
      'featured',
      'videos',
      'shorts',
      'streams',
      'playlists',
      'community',
      'store',
      'channels',
      'about',
      'search',
    ]);
    expect(page.ids).toEqual([
      'S19QqBytWC4', // an upcoming premiere: still a video
      'ah5M4Umuf9w',
      'fclTFQQvQFQ',
      'RphKLsy3tSc',
      'ANE0uKeX-U0',
      'SeOlDGN346E',
      'Z2r46Gv7mp4',
      'B3DndCaYgyM',
      'KzS39YvFOv8',
      'nkMTc_E2a_Q',
      '1VceG1Fmlo4',
      'HSIh8UswVVY',
      '6WW7J7Hhw8c',
      'xY80ybQveGo',
      '6fOLL23dauo',
      'Uul-r55n__k',
      'fo2mz_Vv8Zc',
      '8HH90zRaueE',
      'nXZmaLQRes4',
      'l2MBsq8r4uM',
      'S0uhVCZ6q_c',
      '7Be1AuQeAWM',
      'gB6WLkSrtJk',
      '4fXoXeQlBYA',
      'wGIG_8F-JxY',
      'OoVNt-KJ96w',
      'hTlU3byU-rI',
      '_LtwT5_zmDs',
      'OU5TF5lbY4c',
      'NXGIGU1jIXg',
    ]);
    expect(page.items.every((i) => i.kind === 'video')).toBe(true);
    expect(page.continuation).toBe(
      '4qmFsgKMARIYVUNzNm5tUVZpRHBVdzBudUl4OWNfV3ZBGnA4Z1pNR2twNlNBcEVDaHhEYUVWTFJEQldibUpHVWxkU1NFSkhWMnBDYzA1c1VsWlNVa0ZCRWlRMk5EWTVaVEF5WWkwd01EQXdMVEk0T1dRdFlUUXlaQzAxT0RJME1qbGhaVFl6T1dNWUFRJTNEJTNE',
    );
  });

  it('lists the 48 shorts of a 2023 Shorts tab (reelItemRenderer)', () => {
    const page = parseChannelTab(captureInitialData(SHORTS_TAB));
    expect(page.tab).toBe('shorts');
    expect(page.ids).toHaveLength(48);
    expect(page.ids.slice(0, 3)).toEqual(['QkxWDZWLdPo', 'PFhXf8JNTlk', 'OYtlbyue5wk']);
    expect(page.ids.at(-1)).toBe('ZDQA8UaHRh4');
    expect(page.ids).toContain('Rp9F_-HSjW0');
    expect(page.items.every((i) => i.kind === 'short')).toBe(true);
    expect(page.continuation).toMatch(/^4qmFsgL3ARIYVUNvTHJjalBWNVBiVXJVeVhxNW1qY19BGtoB.*%3D$/);
  });

  it('lists the gridVideoRenderer shelves of a 2020 channel home tab, each video once', () => {
    const page = parseChannelTab(captureInitialData('node-ytpl/userPage.html'));
    expect(page.tab).toBe('featured');
    // The channel had no Shorts or Live tab then: the endpoint must not list its home tab as such.
    expect(page.tabs).toEqual([
      'featured',
      'videos',
      'playlists',
      'community',
      'channels',
      'about',
      'search',
    ]);
    expect(findAll(captureInitialData('node-ytpl/userPage.html'), 'gridVideoRenderer')).toHaveLength(84);
    expect(page.ids).toHaveLength(83); // OCde_jHUQkc is on two shelves
    expect(page.ids.slice(0, 3)).toEqual(['OCde_jHUQkc', 'dgzbYhcoCJk', 'NJ0kfmjlqAc']);
    expect(page.ids.at(-1)).toBe('MnpW14h9U5E');
    expect(page.continuation).toBeNull();
  });

  it('marks videos live now by their LIVE_NOW badge (landing page rich grid)', () => {
    const page = parseChannelTab(captureInitialData('node-ytpl/landingPage.html'));
    expect(page.ids).toHaveLength(45);
    expect(page.items.filter((i) => i.kind === 'live').map((i) => i.id)).toEqual([
      'YsBe9BFIjBs',
      '5qap5aO4i9A',
    ]);
    expect(page.tab).toBeNull();
  });

  it('knows the browse params the captured page uses for the videos, shorts and live tabs', () => {
    const tabs = dig(captureInitialData(VIDEOS_TAB), 'contents', 'twoColumnBrowseResultsRenderer', 'tabs');
    const params = new Map(
      findAll(tabs, 'tabRenderer').map((t) => [
        String(dig(t, 'endpoint', 'commandMetadata', 'webCommandMetadata', 'url'))
          .split('/')
          .pop(),
        decodeURIComponent(String(dig(t, 'endpoint', 'browseEndpoint', 'params'))),
      ]),
    );
    for (const tab of Object.values(CHANNEL_TABS)) expect(params.get(tab.suffix)).toBe(tab.params);
    expect(channelTabBrowse('UCs6nmQViDpUw0nuIx9c_WvA', 'short')).toEqual({
      browseId: 'UCs6nmQViDpUw0nuIx9c_WvA',
      params: 'EgZzaG9ydHPyBgUKA5oBAA==',
    });
  });
});

describe('parsePlaylistPage on captures', () => {
  it('lists a 12-video playlist (2023) without continuation', () => {
    const page = parsePlaylistPage(
      captureInitialData('pytube/playlist-PLzMcBGfZo4-mP7qA9cagf68V06sko5otr.html'),
    );
    if (!page.found) throw new Error(page.reason);
    expect(page.title).toBe('Python Machine Learning Tutorials');
    expect(page.ids).toHaveLength(12);
    expect(page.ids.slice(0, 3)).toEqual(['ujTCoH21GlA', '45ryDIPHdGg', '1BYu65vLKdA']);
    expect(page.ids.at(-1)).toBe('zixd-si9Q-o');
    expect(page.continuation).toBeNull();
  });

  it('lists the first 100 of a long playlist (2023) with the continuation for the rest', () => {
    const page = parsePlaylistPage(
      captureInitialData('pytube/playlist-PLS1QulWo1RIaJECMeUT4LFwJ-ghgoSH6n.html'),
    );
    if (!page.found) throw new Error(page.reason);
    expect(page.title).toBe('Python Tutorial for Beginners (For Absolute Beginners)');
    expect(page.ids).toHaveLength(100);
    expect(page.ids[0]).toBe('41qgdwd3zAg');
    expect(page.ids.at(-1)).toBe('D__VCSj4o6U');
    expect(page.continuation).toBe(
      '4qmFsgJhEiRWTFBMUzFRdWxXbzFSSWFKRUNNZVVUNExGd0otZ2hnb1NINm4aFENBRjZCbEJVT2tOSFVRJTNEJTNEmgIiUExTMVF1bFdvMVJJYUpFQ01lVVQ0TEZ3Si1naGdvU0g2bg%3D%3D',
    );
  });

  it('lists 2020–21 playlist pages: an uploads playlist, one with repeats, a short one', () => {
    const uploads = parsePlaylistPage(captureInitialData('node-ytpl/firstpage_01.html'));
    if (!uploads.found) throw new Error(uploads.reason);
    expect(uploads.title).toBe('Uploads from NoCopyrightSounds');
    expect(uploads.ids).toHaveLength(100);
    expect([uploads.ids[0], uploads.ids.at(-1)]).toEqual(['K6ry2Lm9-2Q', 't4IOgVatNLI']);
    expect(uploads.continuation).toBe('<firstContinuationToken>'); // scrubbed in the capture

    const repeats = parsePlaylistPage(captureInitialData('node-ytpl/firstpage_02.html'));
    if (!repeats.found) throw new Error(repeats.reason);
    expect(findAll(captureInitialData('node-ytpl/firstpage_02.html'), 'playlistVideoRenderer')).toHaveLength(
      100,
    );
    expect(repeats.ids).toHaveLength(94); // six videos stand twice in the list
    expect(repeats.ids[0]).toBe('eDcKZpoUc6s');
    expect(repeats.continuation).toMatch(/^4qmFsgJhEiRWTFBMUkJwMEZlMkdwZ25JaDBBaVlL/);

    const short = parsePlaylistPage(captureInitialData('node-ytpl/firstpage_04.html'));
    if (!short.found) throw new Error(short.reason);
    expect(short.title).toBe('電視劇《錦繡未央》主題曲 (The Princess Weiyoung Theme Song)');
    expect(short.ids).toEqual(['HvJ21S5qEjQ', 'GR4rzMAZB-Q', 'CCfE8nfcYds', 'Psx_lC5eG_w']);
    expect(short.continuation).toBeNull();
  });

  it('answers found: false for the playlist-not-found page and the landing page', () => {
    expect(parsePlaylistPage(captureInitialData('node-ytpl/notexistspage.html'))).toEqual({
      found: false,
      reason: 'The playlist does not exist.',
    });
    expect(parsePlaylistPage(captureInitialData('node-ytpl/landingPage.html'))).toEqual({
      found: false,
      reason: 'not a playlist page',
    });
  });

  it('leaves out unplayable (deleted, private) entries', () => {
    const data = structuredClone(
      captureInitialData('pytube/playlist-PLzMcBGfZo4-mP7qA9cagf68V06sko5otr.html'),
    ) as Record<string, unknown>;
    const first = findAll(data, 'playlistVideoRenderer')[0] as Record<string, unknown>;
    first.isPlayable = false;
    const page = parsePlaylistPage(data);
    expect(page.found && page.ids).toHaveLength(11);
    expect(page.found && page.ids[0]).toBe('45ryDIPHdGg');
  });

  it('the uploads playlist of a channel is UU + its id', () => {
    // firstpage_01 is NoCopyrightSounds' uploads playlist; every video in it is by that channel.
    const data = captureInitialData('node-ytpl/firstpage_01.html');
    expect(
      dig(
        findAll(data, 'playlistVideoRenderer')[0],
        'shortBylineText',
        'runs',
        0,
        'navigationEndpoint',
        'browseEndpoint',
        'browseId',
      ),
    ).toBe('UC_aEa8K-EOJ3D6gOs7HcyNg');
    expect(uploadsPlaylistId('UC_aEa8K-EOJ3D6gOs7HcyNg')).toBe('UU_aEa8K-EOJ3D6gOs7HcyNg');
    expect(dig(data, 'microformat', 'microformatDataRenderer', 'urlCanonical')).toBe(
      'http://www.youtube.com/playlist?list=UU_aEa8K-EOJ3D6gOs7HcyNg',
    );
    expect(uploadsPlaylistId('@handle')).toBeNull();
    expect(playlistBrowseId('PLzMcBGfZo4-mP7qA9cagf68V06sko5otr')).toBe(
      'VLPLzMcBGfZo4-mP7qA9cagf68V06sko5otr',
    );
  });
});

describe('parseBrowseContinuation', () => {
  it('lists a captured playlist continuation (appendContinuationItemsAction), each video once', () => {
    const page = parseBrowseContinuation(captureJson('node-ytpl/secondpage_01.html'));
    expect(page.ids).toHaveLength(99); // z_m0wtLMfdU stands twice
    expect(page.ids.slice(0, 2)).toEqual(['ANygbRCuwZo', 'aWJJEaod34U']);
    expect(page.ids.at(-1)).toBe('p4M3Gle4NQ4');
    expect(page.continuation).toBe('<secondContinuationToken>');
  });

  it('reads the 2020 continuationContents form with nextContinuationData', () => {
    const answer = {
      continuationContents: {
        gridContinuation: {
          items: [
            { gridVideoRenderer: { videoId: 'OCde_jHUQkc' } },
            { gridVideoRenderer: { videoId: 'dgzbYhcoCJk' } },
          ],
          continuations: [{ nextContinuationData: { continuation: 'next-2020', clickTrackingParams: 'x' } }],
        },
      },
    };
    expect(parseBrowseContinuation(answer)).toEqual({
      ids: ['OCde_jHUQkc', 'dgzbYhcoCJk'],
      items: [
        { id: 'OCde_jHUQkc', kind: 'video' },
        { id: 'dgzbYhcoCJk', kind: 'video' },
      ],
      continuation: 'next-2020',
    });
  });

  it('gives an empty last page for an answer without items', () => {
    expect(parseBrowseContinuation({ responseContext: {} })).toEqual({
      ids: [],
      items: [],
      continuation: null,
    });
    expect(parseBrowseContinuation(null)).toEqual({ ids: [], items: [], continuation: null });
  });
});

// Constructed fixtures: no public capture of the 2024+ lockup layouts exists.
describe('2024+ lockup layouts (constructed fixtures)', () => {
  it('lists lockupViewModel videos, a live one by its badge, skipping a playlist lockup and a repeat', () => {
    const page = parseChannelTab(constructed('channel-2024-videos.json'));
    expect(page.tab).toBe('videos');
    expect(page.items).toEqual([
      { id: 'lockupVid01', kind: 'video' },
      { id: 'lockupVid02', kind: 'video' },
      { id: 'lockupLive1', kind: 'live' },
      { id: 'lockupVid03', kind: 'video' },
    ]);
    // The grid's own continuation, not a filter chip's command.
    expect(page.continuation).toBe('4qmFsgKconstructedVideosPage2');
  });

  it('lists the next page from a browse continuation of lockups', () => {
    expect(parseBrowseContinuation(constructed('channel-2024-videos-continuation.json'))).toEqual({
      ids: ['lockupVid04', 'lockupVid05'],
      items: [
        { id: 'lockupVid04', kind: 'video' },
        { id: 'lockupVid05', kind: 'video' },
      ],
      continuation: null,
    });
  });

  it('lists shortsLockupViewModel shorts', () => {
    const page = parseChannelTab(constructed('channel-2024-shorts.json'));
    expect(page.tab).toBe('shorts');
    expect(page.ids).toEqual(['shortsVid01', 'shortsVid02', 'shortsVid03']);
    expect(page.items.every((i) => i.kind === 'short')).toBe(true);
    expect(page.continuation).toBe('4qmFsgKconstructedShortsPage2');
  });

  it('stays tolerant: a shorts lockup without onTap (id from entityId), a lockup without contentType', () => {
    const page = collectVideos([
      { shortsLockupViewModel: { entityId: 'shorts-shelf-item-shortsVid09' } },
      {
        shortsLockupViewModel: {
          onTap: {
            innertubeCommand: { commandMetadata: { webCommandMetadata: { url: '/shorts/shortsVid10' } } },
          },
        },
      },
      { lockupViewModel: { contentId: 'lockupVid09' } },
      {
        lockupViewModel: {
          contentId: 'PLzMcBGfZo4-mP7qA9cagf68V06sko5otr',
          contentType: 'LOCKUP_CONTENT_TYPE_PLAYLIST',
        },
      },
      { lockupViewModel: { contentId: 'not-an-id' } },
      {
        videoRenderer: {
          videoId: 'shortsVid11',
          navigationEndpoint: { reelWatchEndpoint: { videoId: 'shortsVid11' } },
        },
      },
      { videoRenderer: { title: 'no id' } },
      { richItemRenderer: { content: { videoRenderer: 'garbage' } } },
    ]);
    expect(page.items).toEqual([
      { id: 'shortsVid09', kind: 'short' },
      { id: 'shortsVid10', kind: 'short' },
      { id: 'lockupVid09', kind: 'video' },
      { id: 'shortsVid11', kind: 'short' },
    ]);
  });
});
