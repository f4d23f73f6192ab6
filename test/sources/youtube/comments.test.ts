// Comments: the first request's token (read from every captured watch page, and built without the
// page — checked against the tokens those pages carry), and the `/next` answers in both layouts
// from constructed fixtures (no public capture of a comment answer exists).
import { describe, expect, it } from 'vitest';
import {
  commentsContinuationFromWatch,
  commentsContinuationToken,
  parseCommentsPage,
} from '../../../src/sources/youtube/comments.parse.js';
import { initialDataFromPbj } from '../../../src/sources/youtube/initial-data.js';
import { captureInitialData, captureJson, constructed } from '../../support/youtube-captures.js';

const NOW = Date.parse('2024-11-01T00:00:00Z');

describe('the first comments token', () => {
  it.each([
    [
      'pytube/2lAe1cqCOXo.watch.html',
      '2lAe1cqCOXo',
      'Eg0SCzJsQWUxY3FDT1hvGAYyJSIRIgsybEFlMWNxQ09YbzAAeAJCEGNvbW1lbnRzLXNlY3Rpb24%3D',
    ],
    [
      'youtube-transcript-api/youtube.html.static',
      'GJLlxj_dtq8',
      'Eg0SC0dKTGx4al9kdHE4GAYyJSIRIgtHSkxseGpfZHRxODAAeAJCEGNvbW1lbnRzLXNlY3Rpb24%3D',
    ],
    [
      'pytube/WXxV9g7lsFE.watch.html',
      'WXxV9g7lsFE',
      'Eg0SC1dYeFY5Zzdsc0ZFGAYyJSIRIgtXWHhWOWc3bHNGRTAAeAJCEGNvbW1lbnRzLXNlY3Rpb24%3D',
    ],
    [
      'pytube/5YceQ8YqYMc.watch.html',
      '5YceQ8YqYMc',
      'Eg0SCzVZY2VROFlxWU1jGAYyJSIRIgs1WWNlUThZcVlNYzAAeAJCEGNvbW1lbnRzLXNlY3Rpb24%3D',
    ],
  ])('%s carries it under the video; built from the id it is the same', (file, id, token) => {
    expect(commentsContinuationFromWatch(captureInitialData(file))).toBe(token);
    expect(commentsContinuationToken(id, 'top')).toBe(token);
  });

  it('reads the 2020 form (nextContinuationData) of pages and pbj answers', () => {
    const legacy =
      'EkQSC19IU3lscWdWWVFJwAEAyAEB4AEBogINKP___________wFAAMICGxoXaHR0cHM6Ly93d3cueW91dHViZS5jb20iABgG';
    expect(commentsContinuationFromWatch(captureInitialData('node-ytdl-core/regular.watch.html'))).toBe(
      legacy,
    );
    expect(
      commentsContinuationFromWatch(initialDataFromPbj(captureJson('node-ytdl-core/regular.watch.json'))),
    ).toBe(legacy);
    expect(
      commentsContinuationFromWatch(captureInitialData('node-ytdl-core/age-restricted.watch.html')),
    ).toBe(
      'EkMSC0x1WnU5TjUzVmQwMgDIAQDgAQGiAg0o____________AUAAwgIbGhdodHRwczovL3d3dy55b3V0dWJlLmNvbSIAGAY%3D',
    );
  });

  it('finds none on a live stream (live chat, no comments) or a page without data', () => {
    expect(
      commentsContinuationFromWatch(captureInitialData('node-ytdl-core/live-now.watch.html')),
    ).toBeNull();
    expect(commentsContinuationFromWatch(null)).toBeNull();
  });

  it('builds the Newest token with the sort option set, and refuses what is not a video id', () => {
    const top = Buffer.from(decodeURIComponent(commentsContinuationToken('2lAe1cqCOXo', 'top')), 'base64');
    const newest = Buffer.from(
      decodeURIComponent(commentsContinuationToken('2lAe1cqCOXo', 'newest')),
      'base64',
    );
    expect(newest.length).toBe(top.length);
    const at = top.indexOf(Buffer.from([0x30, 0x00, 0x78, 0x02]));
    expect(at).toBeGreaterThan(0);
    expect([...newest.subarray(at, at + 4)]).toEqual([0x30, 0x01, 0x78, 0x02]);
    expect(() => commentsContinuationToken('https://youtu.be/2lAe1cqCOXo')).toThrow(TypeError);
  });
});

// Constructed fixtures: no public capture of a comment answer exists.
describe('parseCommentsPage, 2024+ entity layout (constructed fixtures)', () => {
  it('reads the first page: header, three comments from their entity payloads, the next page', () => {
    const page = parseCommentsPage(constructed('comments-2024-first.json'), NOW);
    expect(page.totalCount).toBe(1234);
    expect(page.sort).toEqual({
      top: 'Eg0SC2NvbnN0cnVjdGVkGAYyJSIRIgtjb25zdHJ1Y3RlZDAAeAJCEGNvbW1lbnRzLXNlY3Rpb24%3D-top',
      newest: 'Eg0SC2NvbnN0cnVjdGVkGAYyJSIRIgtjb25zdHJ1Y3RlZDABeAJCEGNvbW1lbnRzLXNlY3Rpb24%3D-newest',
    });
    // The page's own continuation, not a thread's replies continuation.
    expect(page.continuation).toBe('Eg0SC2NvbnN0cnVjdGVkGAYyConstructedCommentsPage2');
    expect(page.comments).toEqual([
      {
        id: 'UgzC0nstructedC0mment1AaABAg',
        text: 'Pinned note from the channel: thanks for watching!',
        author: {
          name: '@ConstructedChannel',
          channelId: 'UCc0nstructedChannel0001',
          thumbnail: 'https://yt3.ggpht.com/constructed-1=s88-c-k-c0x00ffffff-no-rj',
        },
        likeCount: 1200,
        replyCount: 12,
        publishedAt: '2024-10-30T00:00:00.000Z',
        isPinned: true,
        isHearted: true,
      },
      {
        id: 'UgyC0nstructedC0mment2AaABAg',
        text: '01:05 is where it gets good.\nSecond line of the comment.',
        author: {
          name: '@viewer-two',
          channelId: 'UCviewerTwoConstructed000',
          thumbnail: 'https://yt3.ggpht.com/constructed-2=s88-c-k-c0x00ffffff-no-rj',
        },
        likeCount: 87,
        replyCount: 3,
        publishedAt: '2024-10-11T00:00:00.000Z', // "3 weeks ago (edited)"
        isPinned: false,
        isHearted: true,
      },
      {
        id: 'UgxC0nstructedC0mment3AaABAg',
        text: 'No likes, no replies yet.',
        author: {
          name: '@viewer-three',
          channelId: 'UCviewerThreeConstructed0',
          thumbnail: 'https://yt3.ggpht.com/constructed-3=s88-c-k-c0x00ffffff-no-rj',
        },
        likeCount: 0, // " "
        replyCount: 0, // ""
        publishedAt: '2023-11-02T00:00:00.000Z',
        isPinned: false,
        isHearted: false,
      },
    ]);
  });

  it('reads a later page (append action, no header, last page)', () => {
    expect(parseCommentsPage(constructed('comments-2024-next.json'), NOW)).toEqual({
      comments: [
        {
          id: 'UgwC0nstructedC0mment4AaABAg',
          text: 'Last comment of the video.',
          author: {
            name: '@viewer-four',
            channelId: 'UCviewerFourConstructed00',
            thumbnail: 'https://yt3.ggpht.com/constructed-4=s88-c-k-c0x00ffffff-no-rj',
          },
          likeCount: 2,
          replyCount: 0,
          publishedAt: '2024-10-31T19:00:00.000Z',
          isPinned: false,
          isHearted: false,
        },
      ],
      continuation: null,
      sort: null,
      totalCount: null,
    });
  });

  it('does not take a replies answer for top-level comments', () => {
    expect(parseCommentsPage(constructed('comments-2024-replies.json'), NOW)).toEqual({
      comments: [],
      continuation: null,
      sort: null,
      totalCount: null,
    });
  });

  it('stays tolerant: finds an entity by comment id when keys differ, skips a thread without one', () => {
    const answer = constructed('comments-2024-first.json');
    const mutations = (
      answer.frameworkUpdates as { entityBatchUpdate: { mutations: Array<Record<string, unknown>> } }
    ).entityBatchUpdate.mutations;
    // Re-key the first comment's entity; drop the third's.
    for (const m of mutations) {
      if (m.entityKey === 'comment-key-1') {
        m.entityKey = 'other-key';
        (m.payload as { commentEntityPayload: { key: string } }).commentEntityPayload.key = 'other-key';
      }
    }
    const kept = mutations.filter((m) => m.entityKey !== 'comment-key-3');
    (answer.frameworkUpdates as { entityBatchUpdate: { mutations: unknown[] } }).entityBatchUpdate.mutations =
      kept;
    const page = parseCommentsPage(answer, NOW);
    expect(page.comments.map((c) => c.id)).toEqual([
      'UgzC0nstructedC0mment1AaABAg',
      'UgyC0nstructedC0mment2AaABAg',
    ]);
    expect(page.comments[0]!.text).toBe('Pinned note from the channel: thanks for watching!');
  });

  it('lists top-level entities in mutation order when no thread renderer names them', () => {
    const answer = constructed('comments-2024-first.json');
    delete answer.onResponseReceivedEndpoints;
    const page = parseCommentsPage(answer, NOW);
    expect(page.comments.map((c) => c.id)).toEqual([
      'UgzC0nstructedC0mment1AaABAg',
      'UgyC0nstructedC0mment2AaABAg',
      'UgxC0nstructedC0mment3AaABAg',
    ]);
    expect(page.comments[0]!.isPinned).toBe(false); // only a thread says so
  });

  it('gives an empty page for junk', () => {
    for (const junk of [
      null,
      'x',
      {},
      { onResponseReceivedEndpoints: 'x' },
      { frameworkUpdates: { entityBatchUpdate: { mutations: [1, { payload: 'x' }] } } },
    ]) {
      expect(parseCommentsPage(junk, NOW)).toEqual({
        comments: [],
        continuation: null,
        sort: null,
        totalCount: null,
      });
    }
  });
});

describe('parseCommentsPage, legacy commentRenderer layout (constructed fixture)', () => {
  it('reads runs, vote counts, reply counts, the pinned badge and the creator heart', () => {
    const page = parseCommentsPage(constructed('comments-legacy.json'), NOW);
    expect(page.totalCount).toBe(57);
    expect(page.sort?.newest).toMatch(/-newest$/);
    expect(page.continuation).toBe('LegacyConstructedCommentsPage2');
    expect(page.comments).toEqual([
      {
        id: 'UgxLegacyC0mment1AaABAg',
        text: 'Welcome, everyone!',
        author: {
          name: '@ConstructedChannel',
          channelId: 'UCc0nstructedChannel0001',
          thumbnail: 'https://yt3.ggpht.com/legacy-UgxLeg=s176-c-k-c0x00ffffff-no-rj',
        },
        likeCount: 3400,
        replyCount: 21,
        publishedAt: '2024-10-02T00:00:00.000Z',
        isPinned: true,
        isHearted: true,
      },
      {
        id: 'UgxLegacyC0mment2AaABAg',
        text: 'Great explanation at 4:20',
        author: {
          name: '@legacy-viewer',
          channelId: 'UClegacyViewerConstructed',
          thumbnail: 'https://yt3.ggpht.com/legacy-UgxLeg=s176-c-k-c0x00ffffff-no-rj',
        },
        likeCount: 15,
        replyCount: 1,
        publishedAt: '2024-10-26T00:00:00.000Z',
        isPinned: false,
        isHearted: true,
      },
      {
        id: 'UgxLegacyC0mment3AaABAg',
        text: 'Nobody liked this yet.',
        author: {
          name: '@quiet-viewer',
          channelId: 'UCquietViewerConstructed0',
          thumbnail: 'https://yt3.ggpht.com/legacy-UgxLeg=s176-c-k-c0x00ffffff-no-rj',
        },
        likeCount: 0,
        replyCount: 0,
        publishedAt: '2024-10-18T00:00:00.000Z',
        isPinned: false,
        isHearted: false,
      },
    ]);
  });

  it('reads the 2020–21 itemSectionContinuation form', () => {
    const answer = {
      continuationContents: {
        itemSectionContinuation: {
          contents: [
            {
              commentThreadRenderer: {
                comment: {
                  commentRenderer: {
                    commentId: 'UgzOld2020',
                    contentText: { runs: [{ text: 'old ' }, { text: 'style' }] },
                    authorText: { simpleText: 'Someone' },
                    publishedTimeText: { runs: [{ text: '2 years ago' }] },
                    voteCount: { simpleText: '1.5K' },
                  },
                },
              },
            },
          ],
          header: {
            commentsHeaderRenderer: {
              commentsCount: { simpleText: '2,001' },
              sortMenu: {
                sortFilterSubMenuRenderer: {
                  subMenuItems: [
                    {
                      title: 'Top comments',
                      continuation: { reloadContinuationData: { continuation: 'top-2020' } },
                    },
                    {
                      title: 'Newest first',
                      continuation: { reloadContinuationData: { continuation: 'new-2020' } },
                    },
                  ],
                },
              },
            },
          },
          continuations: [{ nextContinuationData: { continuation: 'next-2020' } }],
        },
      },
    };
    expect(parseCommentsPage(answer, NOW)).toEqual({
      comments: [
        {
          id: 'UgzOld2020',
          text: 'old style',
          author: { name: 'Someone', channelId: null, thumbnail: null },
          likeCount: 1500,
          replyCount: 0,
          publishedAt: '2022-11-02T00:00:00.000Z',
          isPinned: false,
          isHearted: false,
        },
      ],
      continuation: 'next-2020',
      sort: { top: 'top-2020', newest: 'new-2020' },
      totalCount: 2001,
    });
  });
});
