// Video, channel and playlist recognition on the forms people actually paste, and on look-alikes.
import { describe, expect, it } from 'vitest';
import {
  isPlatformHost,
  parseChannelRef,
  parsePlaylistId,
  parseVideoId,
} from '../../../src/sources/youtube/ids.js';

const ID = 'dQw4w9WgXcQ';

describe('parseVideoId', () => {
  it.each([
    ID,
    `  ${ID}\n`,
    `https://www.youtube.com/watch?v=${ID}`,
    `http://youtube.com/watch?v=${ID}`,
    `https://youtube.com/watch?v=${ID}&t=42s`,
    `https://www.youtube.com/watch?feature=share&v=${ID}&list=PLzMcBGfZo4-mP7qA9cagf68V06sko5otr&index=3`,
    `https://www.youtube.com/watch?app=desktop&v=${ID}#t=10`,
    `www.youtube.com/watch?v=${ID}`,
    `youtube.com/watch?v=${ID}`,
    `https://m.youtube.com/watch?v=${ID}`,
    `https://music.youtube.com/watch?v=${ID}&si=abc`,
    `https://gaming.youtube.com/watch?v=${ID}`,
    `https://youtu.be/${ID}`,
    `https://youtu.be/${ID}?si=Xy_12&t=5`,
    `youtu.be/${ID}`,
    `https://www.youtube.com/shorts/${ID}`,
    `https://youtube.com/shorts/${ID}?feature=share`,
    `https://www.youtube.com/embed/${ID}?start=10&autoplay=1`,
    `https://www.youtube-nocookie.com/embed/${ID}`,
    `https://youtube-nocookie.com/embed/${ID}?rel=0`,
    `https://www.youtube.com/live/${ID}?feature=shared`,
    `https://www.youtube.com/v/${ID}?version=3`,
    `https://www.youtube.com/e/${ID}`,
    `https://WWW.YOUTUBE.COM/watch?v=${ID}`,
    `https://www.youtube.com/attribution_link?a=x&u=%2Fwatch%3Fv%3D${ID}%26feature%3Dshare`,
  ])('recognises %s', (input) => {
    expect(parseVideoId(input)).toBe(ID);
  });

  it('keeps ids with - and _', () => {
    expect(parseVideoId('https://youtu.be/_HSylqgVYQI')).toBe('_HSylqgVYQI');
    expect(parseVideoId('GJLlxj_dtq8')).toBe('GJLlxj_dtq8');
    expect(parseVideoId('https://www.youtube.com/watch?v=-Xk9ZYYm6WM')).toBe('-Xk9ZYYm6WM');
  });

  it.each([
    '',
    '   ',
    'dQw4w9WgXc', // 10 characters
    'dQw4w9WgXcQQ', // 12
    'dQw4w9WgXc!',
    `https://www.youtube.com/watch?v=${ID}x`,
    'https://www.youtube.com/watch',
    'https://www.youtube.com/watch?v=',
    'https://www.youtube.com/',
    'https://www.youtube.com/@MrBeast',
    'https://www.youtube.com/channel/UCs6nmQViDpUw0nuIx9c_WvA',
    'https://www.youtube.com/playlist?list=PLzMcBGfZo4-mP7qA9cagf68V06sko5otr',
    'https://www.youtube.com/embed/videoseries?list=PLzMcBGfZo4-mP7qA9cagf68V06sko5otr',
    `https://vimeo.com/watch?v=${ID}`,
    `https://youtube.com.evil.example/watch?v=${ID}`,
    `https://evilyoutube.com/watch?v=${ID}`,
    `https://notyoutu.be/${ID}`,
    `ftp://youtube.com/watch?v=${ID}`,
    `javascript:alert(1)//youtube.com/watch?v=${ID}`,
    `https://user:pass@youtube.com/watch?v=${ID}`,
    `https://youtu.be/`,
    `https://www.tiktok.com/@user/video/7234567890123456789`,
    `watch?v=${ID}`,
    `https://www.youtube.com/watch?v=${ID} extra words`,
  ])('rejects %j', (input) => {
    expect(parseVideoId(input)).toBeNull();
  });
});

describe('parseChannelRef', () => {
  const UC = 'UCs6nmQViDpUw0nuIx9c_WvA';

  it.each([
    [UC, { kind: 'id', id: UC }],
    [`https://www.youtube.com/channel/${UC}`, { kind: 'id', id: UC }],
    [`https://youtube.com/channel/${UC}/videos`, { kind: 'id', id: UC }],
    [`https://m.youtube.com/channel/${UC}?sub_confirmation=1`, { kind: 'id', id: UC }],
    [`youtube.com/channel/${UC}`, { kind: 'id', id: UC }],
    ['@MrBeast', { kind: 'handle', handle: '@MrBeast' }],
    ['@mr.beast_6000-x', { kind: 'handle', handle: '@mr.beast_6000-x' }],
    ['https://www.youtube.com/@Fireship', { kind: 'handle', handle: '@Fireship' }],
    ['https://www.youtube.com/@Fireship/shorts', { kind: 'handle', handle: '@Fireship' }],
    ['https://m.youtube.com/@Fireship?si=1', { kind: 'handle', handle: '@Fireship' }],
    ['youtube.com/@Fireship', { kind: 'handle', handle: '@Fireship' }],
    ['https://www.youtube.com/@%E3%81%BE%E3%81%A4%E3%82%8A', { kind: 'handle', handle: '@まつり' }],
    ['Fireship', { kind: 'handle', handle: '@Fireship' }],
    ['https://www.youtube.com/c/LinusTechTips', { kind: 'legacy', path: '/c/LinusTechTips' }],
    ['https://www.youtube.com/c/LinusTechTips/videos', { kind: 'legacy', path: '/c/LinusTechTips' }],
    ['https://www.youtube.com/user/pietsmiet', { kind: 'legacy', path: '/user/pietsmiet' }],
    ['http://youtube.com/user/pietsmiet?feature=x', { kind: 'legacy', path: '/user/pietsmiet' }],
    ['https://www.youtube.com/pietsmiet', { kind: 'legacy', path: '/pietsmiet' }],
  ])('recognises %s', (input, expected) => {
    expect(parseChannelRef(input)).toEqual(expected);
  });

  it.each([
    '',
    '@ab', // too short
    '@this-handle-is-far-too-long-for-the-platform',
    '@with space',
    'UCs6nmQViDpUw0nuIx9c_Wv', // 23 characters
    'https://www.youtube.com/channel/notAChannelId',
    'https://www.youtube.com/channel/',
    'https://www.youtube.com/c/',
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
    'https://youtu.be/dQw4w9WgXcQ',
    'https://www.youtube.com/playlist?list=PLzMcBGfZo4-mP7qA9cagf68V06sko5otr',
    'https://www.youtube.com/results?search_query=x',
    'https://www.youtube.com/shorts/dQw4w9WgXcQ',
    'https://www.youtube.com/',
    'https://www.youtube-nocookie.com/@Fireship',
    'https://twitter.com/@Fireship',
    'https://example.com/channel/UCs6nmQViDpUw0nuIx9c_WvA',
    'a/b',
    'ab',
  ])('rejects %j', (input) => {
    expect(parseChannelRef(input)).toBeNull();
  });
});

describe('parsePlaylistId', () => {
  it.each([
    ['PLzMcBGfZo4-mP7qA9cagf68V06sko5otr', 'PLzMcBGfZo4-mP7qA9cagf68V06sko5otr'],
    ['UU_aEa8K-EOJ3D6gOs7HcyNg', 'UU_aEa8K-EOJ3D6gOs7HcyNg'],
    ['OLAK5uy_kZ8wUPPJUb-2bJCfh2Bmkuh8fvBy6h4JU', 'OLAK5uy_kZ8wUPPJUb-2bJCfh2Bmkuh8fvBy6h4JU'],
    ['RDdQw4w9WgXcQ', 'RDdQw4w9WgXcQ'],
    ['PL59FEE129ADFF2B12', 'PL59FEE129ADFF2B12'],
    [
      'https://www.youtube.com/playlist?list=PLS1QulWo1RIaJECMeUT4LFwJ-ghgoSH6n',
      'PLS1QulWo1RIaJECMeUT4LFwJ-ghgoSH6n',
    ],
    [
      'https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PLzMcBGfZo4-mP7qA9cagf68V06sko5otr&index=2',
      'PLzMcBGfZo4-mP7qA9cagf68V06sko5otr',
    ],
    [
      'https://music.youtube.com/playlist?list=OLAK5uy_kZ8wUPPJUb-2bJCfh2Bmkuh8fvBy6h4JU',
      'OLAK5uy_kZ8wUPPJUb-2bJCfh2Bmkuh8fvBy6h4JU',
    ],
    [
      'https://youtu.be/dQw4w9WgXcQ?list=PLzMcBGfZo4-mP7qA9cagf68V06sko5otr',
      'PLzMcBGfZo4-mP7qA9cagf68V06sko5otr',
    ],
    [
      'https://www.youtube.com/embed/videoseries?list=PLzMcBGfZo4-mP7qA9cagf68V06sko5otr',
      'PLzMcBGfZo4-mP7qA9cagf68V06sko5otr',
    ],
    ['youtube.com/playlist?list=UU_aEa8K-EOJ3D6gOs7HcyNg', 'UU_aEa8K-EOJ3D6gOs7HcyNg'],
  ])('recognises %s', (input, expected) => {
    expect(parsePlaylistId(input)).toBe(expected);
  });

  it.each([
    '',
    'WL', // watch later: private
    'LL',
    'PL',
    'PLshort',
    'XXzMcBGfZo4-mP7qA9cagf68V06sko5otr',
    'PLzMcBGfZo4-mP7qA9cagf68V06sko5otr!',
    'https://www.youtube.com/playlist',
    'https://www.youtube.com/playlist?list=WL',
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
    'https://example.com/playlist?list=PLzMcBGfZo4-mP7qA9cagf68V06sko5otr',
    'dQw4w9WgXcQ',
  ])('rejects %j', (input) => {
    expect(parsePlaylistId(input)).toBeNull();
  });
});

describe('isPlatformHost', () => {
  it('knows the hosts and nothing else', () => {
    for (const h of ['youtube.com', 'www.youtube.com', 'm.youtube.com', 'music.youtube.com', 'youtu.be']) {
      expect(isPlatformHost(h)).toBe(true);
    }
    for (const h of ['youtube.co', 'img.youtube.com.example', 'vimeo.com', 'youtube.com.example.org']) {
      expect(isPlatformHost(h)).toBe(false);
    }
  });
});
