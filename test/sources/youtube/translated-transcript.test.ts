// The platform's own translation of a video's captions through the service a route will call
// (services.youtube.translatedTranscript) on the replay server: a track already in the language, a
// `tlang` translation of the original track, and transcript_unavailable (never another language)
// when the platform does not translate; the video's own errors; a bad language code before any call.
import { describe, expect, it } from 'vitest';
import type { AppError } from '../../../src/errors.js';
import type { TestApp } from '../../support/app.js';
import { useReplayApp } from '../../support/replay-app.js';
import { startYouTubeReplay, type YouTubeReplay } from '../../support/youtube-replay.js';

const VIDEO = 'GJLlxj_dtq8'; // captions zh cs en (manual and auto) de hi ja ko es; 18 translation languages
const NO_CAPTIONS = 'dsMFmonKDD4';

let replay: YouTubeReplay;
let t: TestApp;

useReplayApp(
  { upstream: 'YOUTUBE', start: startYouTubeReplay, register: false, clearRequests: true },
  (stage) => {
    ({ replay, t } = stage);
  },
);

const timedtexts = () => replay.requests.filter((r) => r.path === '/api/timedtext').map((r) => r.query);
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: AppError) => ({ code: err.code, details: err.details, message: err.message }),
  );

describe('translatedTranscript', () => {
  it("answers the platform's translation of the original track (tlang), listing the native languages", async () => {
    const transcript = await t.services.youtube.translatedTranscript(VIDEO, 'nl');
    expect(transcript.lang).toBe('nl');
    expect(transcript.availableLangs).toEqual(['zh', 'cs', 'en', 'de', 'hi', 'ja', 'ko', 'es']);
    expect(transcript.cues.length).toBeGreaterThan(0);
    const [query] = timedtexts();
    expect(query?.get('tlang')).toBe('nl');
    expect(query?.get('lang')).toBe('en'); // the original track is the one translated
  });

  it('answers a track already in the language as it is (no tlang)', async () => {
    const transcript = await t.services.youtube.translatedTranscript(VIDEO, 'de');
    expect(transcript.lang).toBe('de');
    expect(timedtexts().map((q) => [q.get('lang'), q.get('tlang')])).toEqual([['de', null]]);
  });

  it('is transcript_unavailable, without asking for captions, when the platform does not translate', async () => {
    expect(await failure(t.services.youtube.translatedTranscript(VIDEO, 'sw'))).toMatchObject({
      code: 'transcript_unavailable',
      message: expect.stringContaining('into sw'),
    });
    expect(timedtexts()).toEqual([]);
    expect(await failure(t.services.youtube.translatedTranscript(NO_CAPTIONS, 'en'))).toMatchObject({
      code: 'transcript_unavailable',
    });
  });

  it("passes on the video's own errors, and refuses a bad language code before any request", async () => {
    expect(await failure(t.services.youtube.translatedTranscript('unknownVid1', 'en'))).toMatchObject({
      code: 'not_found',
    });
    replay.requests.length = 0;
    expect(await failure(t.services.youtube.translatedTranscript(VIDEO, 'en"; drop'))).toMatchObject({
      code: 'invalid_request',
      details: 'lang',
    });
    expect(replay.requests).toEqual([]);
  });
});
