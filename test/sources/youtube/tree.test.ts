// The tolerant walkers every parser stands on, on a real page and on odd input.
import { describe, expect, it } from 'vitest';
import {
  absoluteUrl,
  bestImage,
  continuationToken,
  dig,
  findAll,
  findFirst,
  textOf,
} from '../../../src/sources/youtube/tree.js';
import { captureInitialData } from '../../support/youtube-captures.js';

describe('findAll / findFirst / dig', () => {
  it('finds every renderer of a kind anywhere in a real page, in document order', () => {
    const page = captureInitialData('pytube/playlist-PLzMcBGfZo4-mP7qA9cagf68V06sko5otr.html');
    const videos = findAll(page, 'playlistVideoRenderer');
    expect(videos).toHaveLength(12);
    expect(dig(videos[0], 'videoId')).toBe('ujTCoH21GlA');
    expect(dig(videos[11], 'videoId')).toBe('zixd-si9Q-o');
    expect(dig(findFirst(page, 'playlistVideoRenderer'), 'videoId')).toBe('ujTCoH21GlA');
  });

  it('includes matches nested in matches and tolerates any input', () => {
    expect(findAll({ a: { a: 1 }, b: [{ a: 2 }] }, 'a')).toEqual([{ a: 1 }, 1, 2]);
    for (const odd of [null, undefined, 42, 'a', [], {}]) {
      expect(findAll(odd, 'a')).toEqual([]);
      expect(findFirst(odd, 'a')).toBeUndefined();
    }
    expect(findFirst({ x: [{ y: { a: 'first' } }], a: 'second' }, 'a')).toBe('first');
  });

  it('survives a pathologically deep tree', () => {
    let deep: unknown = { a: 'bottom' };
    for (let i = 0; i < 100_000; i++) deep = { n: deep };
    expect(findAll(deep, 'a')).toEqual([]);
    expect(findFirst(deep, 'a')).toBeUndefined();
  });

  it('dig follows keys and indexes and stops where the path breaks', () => {
    const tree = { a: [{ b: 'x' }] };
    expect(dig(tree, 'a', 0, 'b')).toBe('x');
    expect(dig(tree, 'a', 1, 'b')).toBeUndefined();
    expect(dig(tree, 'a', 'b')).toBeUndefined();
    expect(dig(tree, 0)).toBeUndefined();
    expect(dig(null, 'a')).toBeUndefined();
  });
});

describe('textOf', () => {
  it.each([
    ['plain', 'plain'],
    [{ simpleText: 'simple' }, 'simple'],
    [{ runs: [{ text: '3,4\u00a0k' }, { text: '\u00a0vidéos' }] }, '3,4\u00a0k\u00a0vidéos'],
    [{ content: 'attributed', styleRuns: [] }, 'attributed'],
    [{ runs: [] }, null],
    [{ runs: [{ emoji: {} }] }, null],
    [{ accessibility: {} }, null],
    [null, null],
    [7, null],
  ])('%j → %j', (node, text) => {
    expect(textOf(node)).toBe(text);
  });
});

describe('bestImage', () => {
  it('takes the widest thumbnail of a real banner', () => {
    const page = captureInitialData('pytube/channel-UCs6nmQViDpUw0nuIx9c_WvA-videos.html');
    expect(bestImage(dig(page, 'header', 'c4TabbedHeaderRenderer', 'banner'))).toMatch(/=w2560-fcrop64=/);
  });

  it('reads view-model sources and bare lists, and makes URLs absolute', () => {
    expect(
      bestImage({
        sources: [
          { url: '//yt3.ggpht.com/a=s88', width: 88 },
          { url: 'x', width: 48 },
        ],
      }),
    ).toBe('https://yt3.ggpht.com/a=s88');
    expect(bestImage({ image: { sources: [{ url: 'https://a/1' }, { url: 'https://a/2' }] } })).toBe(
      'https://a/2',
    );
    expect(bestImage([{ url: 'http://a/small', width: 10 }])).toBe('https://a/small');
    expect(bestImage({ thumbnails: [] })).toBeNull();
    expect(bestImage(undefined)).toBeNull();
  });

  it('absoluteUrl', () => {
    expect(absoluteUrl('/@MLB')).toBe('https://www.youtube.com/@MLB');
    expect(absoluteUrl('https://x/y')).toBe('https://x/y');
  });
});

describe('continuationToken', () => {
  it('reads the 2021+ endpoint, the replies button, and the 2020 forms', () => {
    expect(continuationToken({ continuationEndpoint: { continuationCommand: { token: 'a' } } })).toBe('a');
    expect(
      continuationToken({ button: { buttonRenderer: { command: { continuationCommand: { token: 'b' } } } } }),
    ).toBe('b');
    expect(continuationToken({ nextContinuationData: { continuation: 'c' } })).toBe('c');
    expect(continuationToken({ continuation: 'd' })).toBe('d');
    expect(continuationToken({ deeper: { x: { continuationCommand: { token: 'e' } } } })).toBe('e');
    expect(continuationToken({})).toBeNull();
    expect(continuationToken('token')).toBeNull();
  });
});
