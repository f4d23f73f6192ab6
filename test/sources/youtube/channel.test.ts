// Channel metadata from the captured channel pages (2023 c4TabbedHeaderRenderer in French and
// English, 2020 in German) and from the constructed 2024+ pageHeaderViewModel page and About panel.
import { describe, expect, it } from 'vitest';
import {
  channelAboutContinuation,
  parseChannel,
  parseChannelAbout,
  withAbout,
} from '../../../src/sources/youtube/channel.parse.js';
import { dig } from '../../../src/sources/youtube/tree.js';
import { captureInitialData, constructed } from '../../support/youtube-captures.js';

describe('parseChannel on captures (c4TabbedHeaderRenderer + channelMetadataRenderer)', () => {
  it('reads a 2023 channel page served in French', () => {
    expect(parseChannel(captureInitialData('pytube/channel-UCs6nmQViDpUw0nuIx9c_WvA-videos.html'))).toEqual({
      id: 'UCs6nmQViDpUw0nuIx9c_WvA',
      name: 'ProgrammingKnowledge',
      handle: '@ProgrammingKnowledge',
      description: expect.stringMatching(
        /^Hi Guys, \nI have Always been asked to share my code[\s\S]*\nCodeBind\.com$/,
      ),
      url: 'https://www.youtube.com/channel/UCs6nmQViDpUw0nuIx9c_WvA',
      subscriberCount: 1_660_000, // "1,66 M d’abonnés"
      videoCount: 3_400, // "3,4 k vidéos"
      viewCount: null, // only the About panel has it
      thumbnail:
        'https://yt3.googleusercontent.com/ytc/AGIKgqO1_aTMxySfeMCqUCPHZPmm_Vh8ecdreU_HUhoR=s900-c-k-c0x00ffffff-no-rj',
      banner:
        'https://yt3.googleusercontent.com/P_2SlvEHY8VylI_j63FgIBK8EKvJryQ-08B9FQptF_SI09S6JKuVmV7MpeXlkxh9WNmsprO8_A=w2560-fcrop64=1,00005a57ffffa5a8-k-c0xffffffff-no-nd-rj',
    });
  });

  it('reads a 2023 channel page served in English', () => {
    expect(parseChannel(captureInitialData('pytube/channel-UCoLrcjPV5PbUrUyXq5mjc_A-shorts.html'))).toEqual({
      id: 'UCoLrcjPV5PbUrUyXq5mjc_A',
      name: 'MLB',
      handle: '@MLB',
      description: null, // empty on the page
      url: 'https://www.youtube.com/channel/UCoLrcjPV5PbUrUyXq5mjc_A',
      subscriberCount: 4_140_000, // "4.14M subscribers"
      videoCount: 287_000, // "287K videos"
      viewCount: null,
      thumbnail:
        'https://yt3.googleusercontent.com/ytc/AL5GRJVKbFC0DNRE3wZDTWf_5Q1PmR8J6nXL1UoRadb5I44=s900-c-k-c0x00ffffff-no-rj',
      banner: expect.stringMatching(
        /^https:\/\/yt3\.googleusercontent\.com\/-P4_ZWIyetaWcH2SsQa1byMh6n.*=w2560-/,
      ),
    });
  });

  it('reads a 2020 channel page (German, before handles, no video count in the header)', () => {
    expect(parseChannel(captureInitialData('node-ytpl/userPage.html'))).toEqual({
      id: 'UCqwGaUvq_l0RKszeHhZ5leA',
      name: 'PietSmiet',
      handle: null, // its vanity URL is /c/pietsmiet
      description: expect.stringMatching(/^PietSmiet will mehr als nur spielen\.\n/),
      url: 'https://www.youtube.com/channel/UCqwGaUvq_l0RKszeHhZ5leA',
      subscriberCount: 2_430_000, // "2,43 Mio. Abonnenten"
      videoCount: null,
      viewCount: null,
      thumbnail: expect.stringMatching(
        /^https:\/\/yt3\.ggpht\.com\/ytc\/AAUvwnjhYGip4T7SHsw7Frh9XV0K6f2j7a.*=s900-/,
      ),
      banner: expect.stringMatching(
        /^https:\/\/yt3\.ggpht\.com\/g7XCMF5tHk7TMul06gIKnZSYIEAlkutEiaCuLg.*=w2560-/,
      ),
    });
  });

  it('gives null for pages that hold no channel', () => {
    expect(parseChannel(captureInitialData('node-ytpl/notexistspage.html'))).toBeNull();
    expect(parseChannel(captureInitialData('node-ytpl/landingPage.html'))).toBeNull();
    expect(
      parseChannel(captureInitialData('pytube/playlist-PLzMcBGfZo4-mP7qA9cagf68V06sko5otr.html')),
    ).toBeNull();
    expect(parseChannel(captureInitialData('pytube/2lAe1cqCOXo.watch.html'))).toBeNull();
    expect(parseChannel(null)).toBeNull();
  });

  it('has no About-panel continuation in the old header', () => {
    expect(
      channelAboutContinuation(captureInitialData('pytube/channel-UCs6nmQViDpUw0nuIx9c_WvA-videos.html')),
    ).toBeNull();
  });
});

// Constructed fixtures: no public capture of the 2024+ header or About panel exists.
describe('parseChannel on the 2024+ layout (constructed fixtures)', () => {
  const CH = 'UCc0nstructedChannel0001';

  it('reads pageHeaderViewModel beside channelMetadataRenderer', () => {
    expect(parseChannel(constructed('channel-2024-videos.json'))).toEqual({
      id: CH,
      name: 'Constructed Channel',
      handle: '@ConstructedChannel',
      description: 'Hand-built channel for parser tests.\nEvery value here is invented.',
      url: `https://www.youtube.com/channel/${CH}`,
      subscriberCount: 1_230_000,
      videoCount: 456,
      viewCount: null,
      thumbnail: 'https://yt3.googleusercontent.com/constructed-avatar=s900-c-k-c0x00ffffff-no-rj',
      banner:
        'https://yt3.googleusercontent.com/constructed-banner=w2560-fcrop64=1,00005a57ffffa5a8-k-c0xffffffff-no-nd-rj',
    });
  });

  it('reads the header alone when channelMetadataRenderer is missing', () => {
    const page = constructed('channel-2024-videos.json');
    delete page.metadata;
    delete page.microformat;
    expect(parseChannel(page)).toEqual({
      id: CH, // from the tabs' browse endpoints
      name: 'Constructed Channel',
      handle: '@ConstructedChannel',
      description: 'Hand-built channel for parser tests.', // the preview
      url: `https://www.youtube.com/channel/${CH}`,
      subscriberCount: 1_230_000,
      videoCount: 456,
      viewCount: null,
      thumbnail: 'https://yt3.googleusercontent.com/constructed-avatar=s160-c-k-c0x00ffffff-no-rj',
      banner: expect.stringMatching(/constructed-banner=w2560-/),
    });
    expect(parseChannel(constructed('channel-2024-shorts.json'))?.id).toBe(CH);
  });

  it('merges the About panel: exact counts, views and the full description', () => {
    const page = constructed('channel-2024-videos.json');
    const token = channelAboutContinuation(page);
    expect(token).toMatch(/^4qmFsgKrCBIYVUNjMG5zdHJ1Y3RlZENoYW5uZWwwMDAx/);
    const about = constructed('channel-2024-about.json');
    expect(parseChannelAbout(about)).toEqual({
      id: CH,
      description: expect.stringMatching(/\nOnly the About panel has this last line\.$/),
      subscriberCount: 1_230_000,
      videoCount: 461,
      viewCount: 98_765_432,
      url: 'https://www.youtube.com/@ConstructedChannel',
    });
    expect(parseChannel(page, about)).toMatchObject({
      id: CH,
      description: expect.stringMatching(/last line\.$/),
      videoCount: 461,
      viewCount: 98_765_432,
      url: `https://www.youtube.com/channel/${CH}`,
    });
  });

  it('takes counts by position when the header is not in English, and none when subscribers are hidden', () => {
    const page = constructed('channel-2024-videos.json');
    const rows = dig(
      page,
      'header',
      'pageHeaderRenderer',
      'content',
      'pageHeaderViewModel',
      'metadata',
      'contentMetadataViewModel',
      'metadataRows',
    ) as Array<{ metadataParts: unknown[] }>;
    rows[1]!.metadataParts = [
      { text: { content: '1,23\u00a0M d’abonnés' } },
      { text: { content: '456 vidéos' } },
    ];
    delete page.metadata;
    expect(parseChannel(page)).toMatchObject({ subscriberCount: 1_230_000, videoCount: 456 });
    rows[1]!.metadataParts = [{ text: { content: '456 videos' } }];
    expect(parseChannel(page)).toMatchObject({ subscriberCount: null, videoCount: 456 });
  });

  it('stays tolerant: a view-model header without an id is not a channel; junk gives nulls, not throws', () => {
    const page = constructed('channel-2024-videos.json');
    delete page.metadata;
    delete page.microformat;
    delete page.contents;
    expect(parseChannel(page)).toBeNull();
    expect(parseChannel({ metadata: { channelMetadataRenderer: { title: 42, avatar: 'x' } } })).toEqual({
      id: null,
      name: null,
      handle: null,
      description: null,
      url: null,
      subscriberCount: null,
      videoCount: null,
      viewCount: null,
      thumbnail: null,
      banner: null,
    });
  });
});

describe('parseChannelAbout on the old About tab (channelAboutFullMetadataRenderer)', () => {
  it('reads its text nodes', () => {
    const answer = {
      contents: {
        x: [
          {
            channelAboutFullMetadataRenderer: {
              description: { simpleText: 'About text' },
              viewCountText: { simpleText: '123,456,789 views' },
              channelId: 'UCs6nmQViDpUw0nuIx9c_WvA',
            },
          },
        ],
      },
    };
    const about = parseChannelAbout(answer);
    expect(about).toEqual({
      id: 'UCs6nmQViDpUw0nuIx9c_WvA',
      description: 'About text',
      subscriberCount: null,
      videoCount: null,
      viewCount: 123_456_789,
      url: null,
    });
    const channel = parseChannel(captureInitialData('pytube/channel-UCs6nmQViDpUw0nuIx9c_WvA-videos.html'));
    expect(withAbout(channel!, about)).toMatchObject({ viewCount: 123_456_789, videoCount: 3_400 });
    expect(parseChannelAbout({})).toBeNull();
    expect(withAbout(channel!, null)).toBe(channel);
  });
});
