// The listing facade the batch jobs call (services.youtube.channelVideos / playlistVideos) on the
// replay server: tabs in DESIGN §4's order under one total, continuations followed, handles
// resolved, the browse bodies sent, and the errors the jobs see (400, 404, 502); and the comment
// walk's Newest order when a first answer has no sort menu.
import { describe, expect, it } from 'vitest';
import type { AppError } from '../../../src/errors.js';
import { commentsContinuationToken } from '../../../src/sources/youtube/comments.parse.js';
import { CHANNEL_TABS } from '../../../src/sources/youtube/listings.js';
import type { TestApp } from '../../support/app.js';
import { useReplayApp } from '../../support/replay-app.js';
import {
  CONSTRUCTED_CHANNEL,
  HTTP_404,
  startYouTubeReplay,
  type YouTubeReplay,
} from '../../support/youtube-replay.js';

const GONE_CHANNEL = 'UCgoneWithAnHttp404Answr';
const GONE_PLAYLIST = 'PLgoneWithAnHttp404Answer';
const NO_MENU = 'noSortMenu1'; // a video whose first comments answer has no header (sort menu)

let replay: YouTubeReplay;
let t: TestApp;

useReplayApp(
  {
    upstream: 'YOUTUBE',
    start: () =>
      startYouTubeReplay({
        channels: { [GONE_CHANNEL]: { '*': HTTP_404 } },
        playlists: { [GONE_PLAYLIST]: HTTP_404 },
        nextContinuations: {
          [commentsContinuationToken(NO_MENU, 'top')]: 'constructed/comments-2024-next.json',
          [commentsContinuationToken(NO_MENU, 'newest')]: 'constructed/comments-2024-next.json',
        },
      }),
    register: false,
    clearRequests: true,
  },
  (stage) => {
    ({ replay, t } = stage);
  },
);

const youtube = () => t.services.youtube;
const bodies = (path: string) =>
  replay.requests
    .filter((r) => r.path === path)
    .map(({ body }) => {
      const { context: _context, ...rest } = body ?? {};
      return rest;
    });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: AppError) => ({ code: err.code, message: err.message }),
  );

describe('channelVideos', () => {
  it('fills an `all` total with videos, then shorts, then live, following the videos continuation', async () => {
    const lists = await youtube().channelVideos(CONSTRUCTED_CHANNEL, { type: 'all', limit: 1000 });
    expect(lists).toEqual({
      videoIds: ['lockupVid01', 'lockupVid02', 'lockupLive1', 'lockupVid03', 'lockupVid04', 'lockupVid05'],
      shortIds: ['shortsVid01', 'shortsVid02', 'shortsVid03'],
      // lockupLive1 is live now: listed once, under Videos where it came first.
      liveIds: ['streamPast1', 'streamPast2'],
    });
    expect(bodies('/youtubei/v1/browse')).toEqual([
      { browseId: CONSTRUCTED_CHANNEL, params: CHANNEL_TABS.video.params },
      { continuation: '4qmFsgKconstructedVideosPage2' },
      { browseId: CONSTRUCTED_CHANNEL, params: CHANNEL_TABS.short.params },
      { continuation: '4qmFsgKconstructedShortsPage2' },
      { browseId: CONSTRUCTED_CHANNEL, params: CHANNEL_TABS.live.params },
    ]);
    expect(replay.requests.every((r) => r.client === 'WEB')).toBe(true);
  });

  it('stops at the limit: later tabs are not asked for once the total is reached', async () => {
    expect(await youtube().channelVideos(CONSTRUCTED_CHANNEL, { type: 'all', limit: 7 })).toEqual({
      videoIds: ['lockupVid01', 'lockupVid02', 'lockupLive1', 'lockupVid03', 'lockupVid04', 'lockupVid05'],
      shortIds: ['shortsVid01'],
      liveIds: [],
    });
    replay.requests.length = 0;
    // First pages are cached; the type default is `all`.
    expect(await youtube().channelVideos(CONSTRUCTED_CHANNEL, { limit: 3 })).toEqual({
      videoIds: ['lockupVid01', 'lockupVid02', 'lockupLive1'],
      shortIds: [],
      liveIds: [],
    });
    expect(replay.requests).toHaveLength(0);
  });

  it('lists one tab by type, from a handle or URL resolved to the channel id', async () => {
    const shorts = await youtube().channelVideos('https://www.youtube.com/@MLB/shorts', {
      type: 'short',
      limit: 5,
    });
    expect(shorts).toEqual({
      videoIds: [],
      shortIds: ['QkxWDZWLdPo', 'PFhXf8JNTlk', 'OYtlbyue5wk', expect.any(String), expect.any(String)],
      liveIds: [],
    });
    expect(bodies('/youtubei/v1/navigation/resolve_url')).toEqual([{ url: 'https://www.youtube.com/@MLB' }]);
    expect(bodies('/youtubei/v1/browse')).toEqual([
      { browseId: 'UCoLrcjPV5PbUrUyXq5mjc_A', params: CHANNEL_TABS.short.params },
    ]);
  });

  it('skips tabs a channel does not have (2020 page: the home tab answers, no shorts or live tab)', async () => {
    expect(await youtube().channelVideos('https://www.youtube.com/user/pietsmiet', { limit: 50 })).toEqual({
      videoIds: [],
      shortIds: [],
      liveIds: [],
    });
    expect(bodies('/youtubei/v1/browse')).toHaveLength(1);
  });

  it('fails with 400 for what is no channel, 404 for an unknown one, 502 when a continuation is refused', async () => {
    expect(await failure(youtube().channelVideos('not a channel!', { limit: 5 }))).toMatchObject({
      code: 'invalid_request',
    });
    expect(await failure(youtube().channelVideos('@nobodyHasThisHandle', { limit: 5 }))).toEqual({
      code: 'not_found',
      message: 'Channel @nobodyHasThisHandle not found',
    });
    expect(await failure(youtube().channelVideos('UCzzzzzzzzzzzzzzzzzzzzzz', { limit: 5 }))).toMatchObject({
      code: 'not_found',
    });
    // The platform's other way of saying so: HTTP 404 to the browse request.
    expect(await failure(youtube().channelVideos(GONE_CHANNEL, { type: 'live', limit: 5 }))).toEqual({
      code: 'not_found',
      message: `Channel ${GONE_CHANNEL} not found`,
    });
    expect(await failure(youtube().channel(GONE_CHANNEL))).toMatchObject({ code: 'not_found' });
    // The captured Videos tab's real token: no capture of its next page, so the stand-in refuses it.
    expect(
      await failure(youtube().channelVideos('UCs6nmQViDpUw0nuIx9c_WvA', { type: 'video', limit: 31 })),
    ).toMatchObject({ code: 'upstream_error', message: expect.stringMatching(/HTTP 400/) });
  });
});

describe('playlistVideos', () => {
  it('follows the captured continuation of an uploads playlist, each video once', async () => {
    const lists = await youtube().playlistVideos('UU_aEa8K-EOJ3D6gOs7HcyNg', { limit: 1000 });
    expect(lists.videoIds).toHaveLength(100 + 99 - 6); // six videos stand on both pages
    expect(new Set(lists.videoIds).size).toBe(lists.videoIds.length);
    expect([lists.videoIds[0], lists.videoIds.at(-1)]).toEqual(['K6ry2Lm9-2Q', 'p4M3Gle4NQ4']);
    expect([lists.shortIds, lists.liveIds]).toEqual([[], []]);
    expect(bodies('/youtubei/v1/browse')).toEqual([
      { browseId: 'VLUU_aEa8K-EOJ3D6gOs7HcyNg' },
      { continuation: '<firstContinuationToken>' },
      { continuation: '<secondContinuationToken>' },
    ]);
  });

  it('takes a playlist URL, stops at the limit, and fails with 404 for a playlist that does not exist', async () => {
    const lists = await youtube().playlistVideos(
      'https://www.youtube.com/watch?v=ujTCoH21GlA&list=PLzMcBGfZo4-mP7qA9cagf68V06sko5otr',
      { limit: 3 },
    );
    expect(lists).toEqual({
      videoIds: ['ujTCoH21GlA', '45ryDIPHdGg', '1BYu65vLKdA'],
      shortIds: [],
      liveIds: [],
    });
    expect(await failure(youtube().playlistVideos('PLthisPlaylistDoesNotExist0', { limit: 3 }))).toEqual({
      code: 'not_found',
      message: 'Playlist PLthisPlaylistDoesNotExist0 not found (The playlist does not exist.)',
    });
    expect(await failure(youtube().playlistVideos(GONE_PLAYLIST, { limit: 3 }))).toEqual({
      code: 'not_found',
      message: `Playlist ${GONE_PLAYLIST} not found`,
    });
    expect(await failure(youtube().playlistVideos('nope', { limit: 3 }))).toMatchObject({
      code: 'invalid_request',
    });
  });

  it('stops a walk when the signal aborts', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    await expect(
      youtube().playlistVideos('PLRBp0Fe2GpgnIh0AiYKh7o7HnYAej-5ph', {
        limit: 10,
        signal: controller.signal,
      }),
    ).rejects.toThrow('cancelled');
  });
});

describe('comments', () => {
  it('reloads Newest with the built token when the first answer has no sort menu', async () => {
    const comments = await youtube().comments(`https://youtu.be/${NO_MENU}`, { limit: 5, sort: 'newest' });
    expect(comments.map((c) => c.id)).toEqual(['UgwC0nstructedC0mment4AaABAg']);
    expect(bodies('/youtubei/v1/next')).toEqual([
      { continuation: commentsContinuationToken(NO_MENU, 'top') },
      { continuation: commentsContinuationToken(NO_MENU, 'newest') },
    ]);
    expect(await failure(youtube().comments('not a video', { limit: 5 }))).toMatchObject({
      code: 'invalid_request',
    });
  });
});
