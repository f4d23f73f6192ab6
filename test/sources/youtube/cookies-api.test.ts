// The operator's account cookies (UNFURL_COOKIES_YOUTUBE) end to end: the replay gates a video behind
// sign-in (the captured age-restricted LOGIN_REQUIRED until a request carries the account's cookie).
// Without cookies the transcript is 403; with them the clients that take cookies send them (with the
// SAPISIDHASH proof) and it is 200. The cookies never go with the clients that refuse them, the media
// download, a scrape of another site, or into any answer.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { type Loopback, startServer } from '../../support/loopback.js';
import { CAPTURES, startYouTubeReplay, type YouTubeReplay } from '../../support/youtube-replay.js';

const GATED = 'signedInXXX';
const SID = 'acct-sid-0123456789';
const SAPISID = 'sapi-secret-9876543210';
const MEDIA = Buffer.from('not really a video, but served as one');
const PAGE = `<!doctype html><html><head><title>Elsewhere</title></head><body><main><h1>Elsewhere</h1>${'<p>A page on another site, with enough words in it to be read as an article. </p>'.repeat(20)}</main></body></html>`;

const CUES = [
  { text: 'Hey, this is just a test', offset: 0, duration: 1540, lang: 'en' },
  { text: 'this is not the original transcript', offset: 1540, duration: 4160, lang: 'en' },
  { text: 'just something shorter, I made up for testing', offset: 5700, duration: 3239, lang: 'en' },
];

let dir: string;
let replay: YouTubeReplay;
let site: Loopback;
const siteRequests: Array<{ url: string; cookie: string | undefined }> = [];
let signedIn: TestApp;
let anonymous: TestApp;
const answers: string[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-cookies-api-'));
  const far = Math.floor(Date.now() / 1000) + 86_400 * 365;
  const cookies = path.join(dir, 'cookies.txt');
  fs.writeFileSync(
    cookies,
    [
      '# Netscape HTTP Cookie File',
      `.youtube.com\tTRUE\t/\tTRUE\t${far}\tSID\t${SID}`,
      `.youtube.com\tTRUE\t/\tTRUE\t${far}\tSAPISID\t${SAPISID}`,
      `#HttpOnly_.youtube.com\tTRUE\t/\tTRUE\t${far}\tLOGIN_INFO\tlogin-info`,
      `.google.com\tTRUE\t/\tTRUE\t${far}\tSID\tgoogle-sid`,
      '',
    ].join('\n'),
  );
  replay = await startYouTubeReplay({
    signedIn: { [GATED]: { cookie: `SID=${SID}`, player: CAPTURES.playerOk } },
    media: MEDIA,
  });
  site = await startServer((req, res) => {
    siteRequests.push({ url: req.url ?? '', cookie: req.headers.cookie });
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
  });
  const env = {
    UNFURL_UPSTREAM_YOUTUBE: replay.url,
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
  };
  signedIn = await createTestApp({ ...env, UNFURL_COOKIES_YOUTUBE: cookies });
  anonymous = await createTestApp(env);
});

afterAll(async () => {
  await signedIn?.close();
  await anonymous?.close();
  await replay?.close();
  await site?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function get(t: TestApp, url: string) {
  const { apiKey } = await t.register();
  const res = await t.call(apiKey, { method: 'GET', url });
  answers.push(res.body, JSON.stringify(res.headers));
  return res;
}

const playerCalls = () => replay.requests.filter((r) => r.path === '/youtubei/v1/player');
const transcriptUrl = `/v1/transcript?url=${encodeURIComponent(`https://www.youtube.com/watch?v=${GATED}`)}&mode=native`;

describe('a video behind sign-in', () => {
  it('is 403 without cookies: every client meets the age gate', async () => {
    replay.requests.length = 0;
    const res = await get(anonymous, transcriptUrl);
    expect([res.statusCode, res.json().error]).toEqual([403, 'forbidden']);
    expect(playerCalls().length).toBeGreaterThanOrEqual(6);
    expect(playerCalls().every((r) => r.headers.cookie === 'SOCS=CAI; CONSENT=YES+cb')).toBe(true);
  });

  it('answers with cookies, sent only by the clients that take them, with their SAPISIDHASH proof', async () => {
    replay.requests.length = 0;
    const res = await get(signedIn, transcriptUrl);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().content).toEqual(CUES);
    const calls = playerCalls();
    // The mobile and visionOS apps refuse browser cookies: they went without, and met the gate.
    expect(calls.map((r) => r.client)).toEqual(['ANDROID', 'IOS', 'VISIONOS', 'TVHTML5']);
    for (const r of calls.slice(0, 3)) {
      expect([r.client, r.headers.cookie, r.headers.authorization]).toEqual([
        r.client,
        'SOCS=CAI; CONSENT=YES+cb',
        undefined,
      ]);
    }
    const tv = calls[3]!;
    // The consent cookie, then the account's own youtube.com cookies (not the google.com one).
    expect(tv.headers.cookie).toBe(
      `SOCS=CAI; CONSENT=YES+cb; SID=${SID}; SAPISID=${SAPISID}; LOGIN_INFO=login-info`,
    );
    const auth = /^SAPISIDHASH (\d+)_([0-9a-f]{40})$/.exec(String(tv.headers.authorization));
    expect(auth).not.toBeNull();
    const [, ts, hash] = auth!;
    expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(60);
    expect(hash).toBe(createHash('sha1').update(`${ts} ${SAPISID} https://www.youtube.com`).digest('hex'));
    expect(tv.headers['x-origin']).toBe('https://www.youtube.com');
    // The captions of the client that took the cookies are fetched with them too.
    const timedtext = replay.requests.find((r) => r.path === '/api/timedtext')!;
    expect(timedtext.headers.cookie).toContain(`SID=${SID}`);
  });

  it('never sends them to the media host, nor to another site', async () => {
    replay.requests.length = 0;
    const { location } = await signedIn.services.platforms.locate(`https://youtu.be/${GATED}`);
    expect(new URL(location.url).hostname).toMatch(/\.googlevideo\.com$/);
    expect(JSON.stringify(location)).not.toContain(SID);
    const file = await signedIn.services.downloader.download(location, dir);
    expect(fs.readFileSync(file.path)).toEqual(MEDIA);
    const media = replay.requests.filter((r) => r.path === '/videoplayback');
    expect(media).toHaveLength(1);
    expect(media[0]!.headers.cookie).toBeUndefined();
    // The media walk still found the answer through the client that took the cookies.
    expect(playerCalls().at(-1)?.client).toBe('TVHTML5');

    const scrape = await get(signedIn, `/v1/web/scrape?url=${encodeURIComponent(`${site.url}/page`)}`);
    expect(scrape.statusCode, scrape.body).toBe(200);
    expect(siteRequests.length).toBeGreaterThanOrEqual(1);
    expect(siteRequests.every((r) => r.cookie === undefined)).toBe(true);
  });

  it('never puts them in an answer', () => {
    expect(answers.length).toBeGreaterThan(0);
    for (const text of answers) {
      expect(text).not.toContain(SID);
      expect(text).not.toContain(SAPISID);
    }
  });
});
