// The microblog post parsers on recorded answers: the real GraphQL captures (both user shapes, a
// video with a quote, photos, text only, a suspended account) and the constructed syndication answers.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  isoDate,
  parseGraphqlPost,
  parseSyndicationPost,
  syndicationToken,
} from '../../../src/sources/x/post.js';
import { CONSTRUCTED_X, SHARED_X } from './replay.js';

const graphql = (id: string, op = 'TweetResultByRestId') =>
  parseGraphqlPost(JSON.parse(fs.readFileSync(path.join(SHARED_X, op, `${id}.json`), 'utf8')));
const syndication = (name: string) =>
  parseSyndicationPost(
    JSON.parse(fs.readFileSync(path.join(CONSTRUCTED_X, `tweet-result-${name}.json`), 'utf8')),
  );

describe('parseGraphqlPost (recorded TweetResultByRestId answers)', () => {
  it('reads a photo post with every stat (legacy user shape)', () => {
    const parsed = graphql('1848831595014459513');
    expect(parsed.kind).toBe('post');
    if (parsed.kind !== 'post') return;
    expect(parsed.post).toMatchObject({
      id: '1848831595014459513',
      url: 'https://x.com/SpaceX/status/1848831595014459513',
      author: { username: 'SpaceX', displayName: 'SpaceX', verified: true },
      stats: { likes: 26045, retweets: 2875, replies: 823, views: 2366779, bookmarks: 715 },
      createdAt: '2024-10-22T20:59:36.000Z',
      quotedTweet: null,
    });
    expect(parsed.post.text).toMatch(/^Flight 6 Super Heavy booster moved to the Starbase pad/);
    expect(parsed.post.text).not.toMatch(/t\.co/);
    expect(parsed.post.author.profileImageUrl).toMatch(
      /^https:\/\/pbs\.twimg\.com\/profile_images\/.+_400x400\.jpg$/,
    );
    expect(parsed.post.media).toHaveLength(3);
    expect(
      parsed.post.media.every((m) => m.type === 'image' && m.url.startsWith('https://pbs.twimg.com/media/')),
    ).toBe(true);
    expect(parsed.videos).toEqual([]);
  });

  it('reads a video post with its quoted post, picking the best MP4', () => {
    const parsed = graphql('1902059299591090335');
    if (parsed.kind !== 'post') throw new Error(parsed.reason);
    expect(parsed.post.stats).toEqual({
      likes: 68091,
      retweets: 6738,
      replies: 85,
      views: 1223553,
      bookmarks: 11022,
    });
    expect(parsed.post.text).toBe(''); // the post is only its video
    expect(parsed.post.media).toEqual([
      { type: 'video', url: expect.stringMatching(/^https:\/\/video\.twimg\.com\/.+\.mp4/) },
    ]);
    expect(parsed.post.media[0]!.url).toMatch(/576x1280/); // the highest bitrate of the three
    expect(parsed.videos[0]).toEqual({
      url: parsed.post.media[0]!.url,
      durationSec: 16.394,
      hlsUrl:
        'https://video.twimg.com/ext_tw_video/1902059279190052864/pu/pl/897qARA__rNk63y5.m3u8?tag=12&v=54d',
    });
    expect(parsed.post.quotedTweet).toEqual({
      id: '1900793157786255768',
      text: 'the funniest tik toks be the ones they dont let you save',
      author: { username: '__itzt3z', displayName: expect.any(String) },
    });
  });

  it('reads the 2025 user shape (core, avatar, verification)', () => {
    const parsed = graphql('1964084223871971826');
    if (parsed.kind !== 'post') throw new Error(parsed.reason);
    expect(parsed.post.author).toEqual({
      username: 'vo1twasdowned',
      displayName: 'Volt',
      profileImageUrl: 'https://pbs.twimg.com/profile_images/1962209901574320129/OkBXZF_p_400x400.jpg',
      verified: false,
    });
    expect(parsed.post.url).toBe('https://x.com/vo1twasdowned/status/1964084223871971826');
    expect(parsed.post.stats.views).toBe(40284);
  });

  it('gives null views where the platform shows none, and the same post from other operations', () => {
    const parsed = graphql('20');
    if (parsed.kind !== 'post') throw new Error(parsed.reason);
    expect(parsed.post).toMatchObject({
      text: 'just setting up my twttr',
      createdAt: '2006-03-21T20:50:14.000Z',
      stats: { likes: 263922, retweets: 123879, replies: 15818, views: null, bookmarks: 10651 },
      media: [],
    });
  });

  it('reports unavailable posts with their reason', () => {
    expect(graphql('991500')).toEqual({ kind: 'unavailable', reason: 'Suspended' });
    expect(parseGraphqlPost({ data: { tweetResult: {} } }).kind).toBe('unavailable');
    expect(parseGraphqlPost({ data: {} }).kind).toBe('unavailable');
    expect(
      parseGraphqlPost({
        data: {
          tweetResult: {
            result: { __typename: 'TweetTombstone', tombstone: { text: { text: 'This Post was deleted' } } },
          },
        },
      }),
    ).toEqual({ kind: 'unavailable', reason: 'This Post was deleted' });
  });

  it('unwraps TweetWithVisibilityResults', () => {
    const raw = JSON.parse(fs.readFileSync(path.join(SHARED_X, 'TweetResultByRestId', '20.json'), 'utf8'));
    raw.data.tweetResult.result = {
      __typename: 'TweetWithVisibilityResults',
      tweet: raw.data.tweetResult.result,
    };
    const parsed = parseGraphqlPost(raw);
    expect(parsed.kind === 'post' && parsed.post.id).toBe('20');
  });
});

describe('parseSyndicationPost (constructed tweet-result answers)', () => {
  it('reads text with links expanded and the media link dropped, video, quote and what it lacks as null', () => {
    const parsed = syndication('1790000000000000001');
    if (parsed.kind !== 'post') throw new Error(parsed.reason);
    expect(parsed.post).toEqual({
      id: '1790000000000000001',
      url: 'https://x.com/constructed_user/status/1790000000000000001',
      text: 'Test launch today, details here -> https://example.org/launch & a video of the static fire',
      author: {
        username: 'constructed_user',
        displayName: 'Constructed Rockets',
        profileImageUrl: 'https://pbs.twimg.com/profile_images/1700000000000000009/AbCdEfGh_400x400.jpg',
        verified: true,
      },
      stats: { likes: 1520, retweets: null, replies: 64, views: 48211, bookmarks: null },
      createdAt: '2024-05-01T12:34:56.000Z',
      media: [
        {
          type: 'video',
          url: 'https://video.twimg.com/ext_tw_video/1790000000000000555/pu/vid/avc1/720x1280/high.mp4?tag=12',
        },
      ],
      quotedTweet: {
        id: '1789000000000000042',
        text: 'Booster on the pad again',
        author: { username: 'padwatcher', displayName: 'Pad Watcher' },
      },
    });
    expect(parsed.videos).toEqual([
      {
        url: parsed.post.media[0]!.url,
        durationSec: 21.5,
        hlsUrl: 'https://video.twimg.com/ext_tw_video/1790000000000000555/pu/pl/master.m3u8?tag=12',
      },
    ]);
  });

  it('reads photos and blue verification', () => {
    const parsed = syndication('1790000000000000002');
    if (parsed.kind !== 'post') throw new Error(parsed.reason);
    expect(parsed.post.text).toBe('Two views of dawn.');
    expect(parsed.post.author.verified).toBe(true);
    expect(parsed.post.media.map((m) => m.type)).toEqual(['image', 'image']);
    expect(parsed.post.quotedTweet).toBeNull();
  });

  it('reports tombstones and empty answers as unavailable', () => {
    expect(syndication('tombstone').kind).toBe('unavailable');
    expect(parseSyndicationPost({}).kind).toBe('unavailable');
    expect(parseSyndicationPost(null).kind).toBe('unavailable');
  });

  it('tolerates missing fields', () => {
    const parsed = parseSyndicationPost({ id_str: '5', text: 'hi' });
    expect(parsed).toEqual({
      kind: 'post',
      videos: [],
      post: {
        id: '5',
        url: 'https://x.com/i/status/5',
        text: 'hi',
        author: { username: null, displayName: null, profileImageUrl: null, verified: false },
        stats: { likes: null, retweets: null, replies: null, views: null, bookmarks: null },
        createdAt: null,
        media: [],
        quotedTweet: null,
      },
    });
  });
});

describe('helpers', () => {
  it('normalises both date forms to ISO 8601 UTC', () => {
    expect(isoDate('Tue Mar 18 18:07:30 +0000 2025')).toBe('2025-03-18T18:07:30.000Z');
    expect(isoDate('Tue Mar 18 20:07:30 +0200 2025')).toBe('2025-03-18T18:07:30.000Z');
    expect(isoDate('2024-05-01T12:34:56.000Z')).toBe('2024-05-01T12:34:56.000Z');
    expect(isoDate('yesterday')).toBeNull();
    expect(isoDate(undefined)).toBeNull();
  });

  it('derives the syndication token from the id (base 36, zeros and dot dropped)', () => {
    // A value other clients of the endpoint compute for this id.
    expect(syndicationToken('719944021058060289')).toBe('1qtrrnvqpw');
    expect(syndicationToken('1848831595014459513')).toMatch(/^[1-9a-z]+$/);
  });
});
