// The shared post metadata shape from what each platform module parses, on recorded answers: the
// captured watch page and player of the video-sharing platform, the captured short-video page, the
// captured microblog GraphQL answers (photos, a video, text only), the constructed photo-sharing post
// queries (a reel, a carousel) and social-network page; a plain file from its headers; the helpers.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileMetadata, fileName } from '../../src/sources/direct/post-metadata.js';
import { parseFacebookPage } from '../../src/sources/facebook/page.js';
import { facebookMetadata } from '../../src/sources/facebook/post-metadata.js';
import { parseInstagramAnswer } from '../../src/sources/instagram/media.js';
import { instagramMetadata } from '../../src/sources/instagram/post-metadata.js';
import {
  hashtagsIn,
  isoFromUnixSeconds,
  mediaOf,
  type PostMetadata,
} from '../../src/sources/post-metadata.js';
import { parseTikTokPage } from '../../src/sources/tiktok/page.js';
import { tiktokMetadata } from '../../src/sources/tiktok/post-metadata.js';
import { parseGraphqlPost } from '../../src/sources/x/post.js';
import { xMetadata } from '../../src/sources/x/post-metadata.js';
import { chaptersFromNext } from '../../src/sources/youtube/chapters.js';
import { parsePlayer } from '../../src/sources/youtube/player.js';
import { youtubeMetadata } from '../../src/sources/youtube/post-metadata.js';
import { toVideo } from '../../src/sources/youtube/video.js';
import {
  commentCountFromNext,
  likeCountFromNext,
  ownerFromNext,
  parseWatchPage,
} from '../../src/sources/youtube/watch-page.js';
import { CAPTURES, youtubeJson, youtubeText } from '../support/youtube-replay.js';
import { CONSTRUCTED_FB, WATCH_ID } from './facebook/replay.js';
import { CONSTRUCTED_IG } from './instagram/replay.js';
import { CAPTURED_ID, SHARED_TIKTOK } from './tiktok/replay.js';
import { SHARED_X } from './x/replay.js';

const KEYS = [
  'additionalData',
  'author',
  'createdAt',
  'description',
  'id',
  'media',
  'platform',
  'stats',
  'tags',
  'title',
  'type',
  'url',
];
const shaped = (m: PostMetadata) => {
  expect(Object.keys(m).sort()).toEqual(KEYS);
  expect(Object.keys(m.author).sort()).toEqual(['avatarUrl', 'displayName', 'username', 'verified']);
  expect(Object.keys(m.stats).sort()).toEqual(['comments', 'likes', 'shares', 'views']);
  expect(m.type).toBe(m.media.type);
  return m;
};

const watchOf = (file: string) => {
  const page = parseWatchPage(youtubeText(file));
  return {
    player: parsePlayer(page.player),
    likeCount: likeCountFromNext(page.initialData),
    owner: ownerFromNext(page.initialData),
    commentCount: commentCountFromNext(page.initialData),
    chapters: chaptersFromNext(page.initialData),
  };
};

describe('the video-sharing platform', () => {
  it('maps a video with its watch page: handle, avatar, badge, comment count as shown', () => {
    const watch = watchOf(CAPTURES.watchPage);
    const video = toVideo('GJLlxj_dtq8', parsePlayer(youtubeJson(CAPTURES.playerOk)), watch);
    expect(shaped(youtubeMetadata(video, watch))).toEqual({
      platform: 'youtube',
      type: 'video',
      id: 'GJLlxj_dtq8',
      url: 'https://www.youtube.com/watch?v=GJLlxj_dtq8',
      title: 'Surface Go Review - It’s Awesome',
      description: expect.stringMatching(/^Dave2D review of the Microsoft Surface Go/),
      author: {
        username: '@Dave2D',
        displayName: 'Dave2D',
        avatarUrl: expect.stringMatching(/^https:\/\/yt3\.ggpht\.com\/.*=s176-/),
        verified: true,
      },
      stats: { views: 1856109, likes: 43864, comments: 2700, shares: null },
      media: {
        type: 'video',
        url: null,
        duration: 316,
        width: null,
        height: null,
        thumbnailUrl: 'https://i.ytimg.com/vi/GJLlxj_dtq8/maxresdefault.jpg',
      },
      tags: expect.arrayContaining(['Dave2D', 'Surface Go']),
      createdAt: '2018-08-02T13:00:08.000Z',
      additionalData: {
        channelId: 'UCVYamHliCI9rw1tHR1xbkfw',
        isLive: false,
        transcriptLanguages: ['zh', 'cs', 'en', 'de', 'hi', 'ja', 'ko', 'es'],
        chapters: expect.arrayContaining([{ title: 'Build Quality', startMs: 39_160, endMs: 66_010 }]),
      },
    });
  });

  it('reads the comment count of a 2023 page from its comments section, and no handle for /user/ channels', () => {
    expect(watchOf('pytube/2lAe1cqCOXo.watch.html')).toMatchObject({
      commentCount: 1_000_000, // "1M" as shown
      owner: { handle: '@YouTube', name: 'YouTube', verified: true },
    });
    expect(watchOf('node-ytdl-core/regular.watch.html').owner).toMatchObject({
      handle: null,
      name: 'FlippyCat',
    });
  });

  it('without its watch page: the channel name only, the rest null', () => {
    const video = toVideo('GJLlxj_dtq8', parsePlayer(youtubeJson(CAPTURES.playerOk)), null);
    const m = shaped(youtubeMetadata(video, null));
    expect(m.author).toEqual({ username: null, displayName: 'Dave2D', avatarUrl: null, verified: null });
    expect(m.stats).toEqual({ views: 1856109, likes: null, comments: null, shares: null });
  });
});

describe('the short-video site', () => {
  it('maps the captured video page: author, exact counts, cover, size, hashtags, date, music', () => {
    const page = parseTikTokPage(
      fs.readFileSync(path.join(SHARED_TIKTOK, `video-${CAPTURED_ID}.html`), 'utf8'),
    );
    if (page.kind !== 'video') throw new Error(page.kind);
    const url = `https://www.tiktok.com/@illojuan/video/${CAPTURED_ID}`;
    expect(shaped(tiktokMetadata(page.video, url))).toEqual({
      platform: 'tiktok',
      type: 'video',
      id: CAPTURED_ID,
      url,
      title: null,
      description: expect.stringMatching(/^La nueva locurilla de fin de año/),
      author: {
        username: 'illojuan',
        displayName: 'IlloJuan',
        avatarUrl: expect.stringMatching(/^https:\/\/p16-common-sign\.tiktokcdn-eu\.com\/.*1080:1080/),
        verified: true,
      },
      stats: { views: 192100, likes: 25500, comments: 146, shares: 2156 },
      media: {
        type: 'video',
        url: null,
        duration: 64,
        width: expect.any(Number),
        height: expect.any(Number),
        thumbnailUrl: expect.stringMatching(/^https:\/\/p16-pu-sign-no\.tiktokcdn-eu\.com\//),
      },
      tags: [], // the caption mentions accounts, no hashtags
      createdAt: expect.stringMatching(/^2025-/),
      additionalData: { saves: 1311, music: { title: expect.any(String), author: expect.any(String) } },
    });
  });
});

describe('the photo-sharing site', () => {
  const answer = (file: string) => {
    const parsed = parseInstagramAnswer(JSON.parse(fs.readFileSync(path.join(CONSTRUCTED_IG, file), 'utf8')));
    if (parsed.kind !== 'media') throw new Error(parsed.kind);
    return parsed.media;
  };

  it('maps a reel: the largest file, its cover, plays, likes, comments, no shares', () => {
    const m = shaped(
      instagramMetadata(
        answer('graphql-2555323354817229568.json'),
        'CN2VQ1yI_MA',
        'https://www.instagram.com/reel/CN2VQ1yI_MA/',
      ),
    );
    expect(m).toMatchObject({
      platform: 'instagram',
      type: 'video',
      id: 'CN2VQ1yI_MA',
      description: 'Constructed caption of a reel',
      author: { username: 'constructed_actor', displayName: 'Constructed Actor', verified: true },
      stats: { views: 2500000, likes: 120345, comments: 987, shares: null },
      media: {
        type: 'video',
        url: expect.stringContaining('constructed_720.mp4'),
        duration: 14.2,
        width: 720,
        height: 1280,
        thumbnailUrl: 'https://scontent-iad3-1.cdninstagram.com/v/t51/constructed_cover.jpg',
      },
      createdAt: '2021-04-19T06:18:04.000Z',
      additionalData: { mediaId: '2555323354817229568', hasAudio: true },
    });
  });

  it('maps a post of two photos as a carousel of images', () => {
    const m = shaped(instagramMetadata(answer('graphql-2569264890088593589.json'), 'COn3M4TnRi1', 'u'));
    expect(m.media).toEqual({
      type: 'carousel',
      items: [
        { type: 'image', url: 'https://scontent.cdninstagram.com/v/t51/one.jpg', width: 1080, height: 1080 },
        { type: 'image', url: 'https://scontent.cdninstagram.com/v/t51/two.jpg', width: 1080, height: 1080 },
      ],
    });
    expect(m.stats).toEqual({ views: null, likes: null, comments: null, shares: null });
    expect(m.author.verified).toBe(false);
  });
});

describe('the microblog', () => {
  const graphql = (id: string) => {
    const parsed = parseGraphqlPost(
      JSON.parse(fs.readFileSync(path.join(SHARED_X, 'TweetResultByRestId', `${id}.json`), 'utf8')),
    );
    if (parsed.kind !== 'post') throw new Error(parsed.reason);
    return xMetadata(parsed.post, parsed.videos);
  };

  it('maps three photos as a carousel, replies as comments and reposts as shares', () => {
    const m = shaped(graphql('1848831595014459513'));
    expect(m).toMatchObject({
      platform: 'twitter',
      type: 'carousel',
      title: null,
      author: { username: 'SpaceX', displayName: 'SpaceX', verified: true },
      stats: { views: 2366779, likes: 26045, comments: 823, shares: 2875 },
      additionalData: { bookmarks: 715, quotedTweet: null },
    });
    expect(m.media.type === 'carousel' && m.media.items.map((i) => i.type)).toEqual([
      'image',
      'image',
      'image',
    ]);
  });

  it('maps a video post with the duration of its file, and the quoted post beside it', () => {
    const m = shaped(graphql('1902059299591090335'));
    expect(m.media).toEqual({
      type: 'video',
      url: expect.stringMatching(/576x1280.*\.mp4/),
      duration: 16.394,
      width: null,
      height: null,
      thumbnailUrl: null,
    });
    expect(m.additionalData.quotedTweet).toMatchObject({ id: '1900793157786255768' });
  });

  it('maps a text-only post as a post holding its text', () => {
    const m = shaped(graphql('20'));
    expect(m).toMatchObject({
      type: 'post',
      media: { type: 'post', text: 'just setting up my twttr' },
      description: 'just setting up my twttr',
      createdAt: '2006-03-21T20:50:14.000Z',
      stats: { views: null },
    });
  });
});

describe('the social network', () => {
  it('maps a watch page: title, owner, date; counts the logged-out page does not show are null', () => {
    const page = parseFacebookPage(
      fs.readFileSync(path.join(CONSTRUCTED_FB, `watch-${WATCH_ID}.html`), 'utf8'),
      WATCH_ID,
    );
    if (page.kind !== 'video') throw new Error(page.kind);
    const url = `https://www.facebook.com/watch/?v=${WATCH_ID}`;
    expect(shaped(facebookMetadata(page.video, WATCH_ID, url))).toEqual({
      platform: 'facebook',
      type: 'video',
      id: WATCH_ID,
      url,
      title: 'Constructed launch',
      description: null,
      author: { username: null, displayName: 'Constructed Space', avatarUrl: null, verified: null },
      stats: { views: null, likes: null, comments: null, shares: null },
      media: { type: 'video', url: null, duration: 12.48, width: null, height: null, thumbnailUrl: null },
      tags: [],
      createdAt: '2024-05-01T10:40:00.000Z',
      additionalData: { ownerId: '100000000000001', captionLanguages: ['en-US', 'es-LA'] },
    });
  });
});

describe('a plain media file', () => {
  it("maps the server's headers and the file's name", () => {
    const url = 'https://files.example/talks/Keynote%202024.mp4';
    expect(
      shaped(
        fileMetadata(url, {
          contentType: 'video/mp4',
          bytes: 1234,
          lastModified: 'Wed, 21 Oct 2015 07:28:00 GMT',
          kind: 'video',
        }),
      ),
    ).toEqual({
      platform: 'file',
      type: 'video',
      id: url,
      url,
      title: 'Keynote 2024.mp4',
      description: null,
      author: { username: null, displayName: null, avatarUrl: null, verified: null },
      stats: { views: null, likes: null, comments: null, shares: null },
      media: { type: 'video', url, duration: null, width: null, height: null, thumbnailUrl: null },
      tags: [],
      createdAt: '2015-10-21T07:28:00.000Z',
      additionalData: { kind: 'video', contentType: 'video/mp4', sizeBytes: 1234 },
    });
    expect(fileName('https://h.example/a/%E0%A4%A.mp3')).toBe('%E0%A4%A.mp3'); // undecodable: as it is
    expect(
      fileMetadata(url, { contentType: null, bytes: null, lastModified: 'soon', kind: 'audio' }).createdAt,
    ).toBeNull();
  });
});

describe('helpers', () => {
  it('hashtagsIn: each tag once, in order, not inside words or entities', () => {
    expect(hashtagsIn('#one two #Two, #one again #três and a&#39;s no#tag')).toEqual(['one', 'Two', 'três']);
    expect(hashtagsIn(null)).toEqual([]);
  });

  it('isoFromUnixSeconds: numbers and digit strings only', () => {
    expect(isoFromUnixSeconds(1714560000)).toBe('2024-05-01T10:40:00.000Z');
    expect(isoFromUnixSeconds('1714560000')).toBe('2024-05-01T10:40:00.000Z');
    for (const bad of [null, 0, -5, 'soon', Number.NaN, 1e20]) expect(isoFromUnixSeconds(bad)).toBeNull();
  });

  it('mediaOf: one item alone, several as a carousel, none as a post', () => {
    const image = { type: 'image' as const, url: 'u', width: null, height: null };
    expect(mediaOf([image], 't')).toBe(image);
    expect(mediaOf([image, image], 't')).toEqual({ type: 'carousel', items: [image, image] });
    expect(mediaOf([], 't')).toEqual({ type: 'post', text: 't' });
  });
});
