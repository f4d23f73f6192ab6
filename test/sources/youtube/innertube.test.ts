// The innertube helper over real sockets: the request it sends (endpoint, client context, headers,
// consent cookie), blocks retried until a good answer, and failures turned into 502 upstream_error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { errorStatus } from '../../../src/http/error-status.js';
import { SafeFetcher } from '../../../src/net/safe-fetch.js';
import { Upstreams } from '../../../src/net/upstream.js';
import { Innertube } from '../../../src/sources/youtube/innertube.js';
import { type Loopback, startServer } from '../../support/loopback.js';
import { CAPTURES, youtubeFixture } from '../../support/youtube-replay.js';

let platform: Loopback;
let fetcher: SafeFetcher;
let innertube: Innertube;
const seen: Array<{ path: string; headers: Record<string, unknown>; body: Record<string, unknown> }> = [];
let blocksLeft = 0;

beforeAll(async () => {
  platform = await startServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      seen.push({
        path: `${url.pathname}${url.search}`,
        headers: req.headers,
        body: JSON.parse(Buffer.concat(parts).toString() || '{}'),
      });
      const json = (status: number, body: string | Buffer) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      switch (url.pathname) {
        case '/youtubei/v1/browse':
          return json(200, '{"contents":{"ok":true}}');
        case '/youtubei/v1/player':
          if (blocksLeft-- > 0) return json(200, youtubeFixture(CAPTURES.playerBotCheck));
          return json(200, youtubeFixture(CAPTURES.playerOk));
        case '/youtubei/v1/next':
          return res
            .writeHead(200, { 'content-type': 'text/html' })
            .end(youtubeFixture(CAPTURES.recaptchaPage));
        case '/youtubei/v1/sorry':
          return res.writeHead(302, { location: 'https://www.google.com/sorry/index?continue=x' }).end();
        case '/youtubei/v1/text':
          return json(200, 'not json');
        case '/youtubei/v1/truncated':
          return json(200, youtubeFixture(CAPTURES.playerOk).subarray(0, 150_000));
        case '/youtubei/v1/lenient':
          // Balanced but no JSON: the scan is unsure of the unquoted key, so the full parse refuses it.
          return json(200, '{"captions":{"a":1},bad:2}');
        default:
          return json(400, '{"error":{"code":400,"message":"Precondition check failed."}}');
      }
    });
  });
  fetcher = new SafeFetcher({ allowPrivateNetwork: true, timeoutMs: 5000 });
  innertube = new Innertube(new Upstreams({ youtube: platform.url }, fetcher, 1));
});

afterAll(async () => {
  await fetcher.close();
  await platform.close();
});

describe('Innertube.call', () => {
  it('POSTs the endpoint with the client context, client headers and consent cookie', async () => {
    seen.length = 0;
    const answer = await innertube.call('browse', { browseId: 'UCx', params: 'EgZ2aWRlb3PyBgQKAjoA' });
    expect(answer).toEqual({ contents: { ok: true } });
    const [req] = seen;
    expect(req?.path).toBe('/youtubei/v1/browse?prettyPrint=false');
    expect(req?.body).toEqual({
      context: { client: { clientName: 'WEB', clientVersion: expect.any(String), hl: 'en', gl: 'US' } },
      browseId: 'UCx',
      params: 'EgZ2aWRlb3PyBgQKAjoA',
    });
    expect(req?.headers['x-youtube-client-name']).toBe('1');
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.headers.cookie).toBe('SOCS=CAI; CONSENT=YES+cb');

    seen.length = 0;
    await innertube.call('player', { videoId: 'GJLlxj_dtq8' }, { client: 'ANDROID' });
    expect(seen[0]?.body.context).toEqual({
      client: expect.objectContaining({
        clientName: 'ANDROID',
        clientVersion: '20.10.38',
        androidSdkVersion: 34,
      }),
    });
    expect(seen[0]?.headers['user-agent']).toMatch(/^com\.google\.android\.youtube\/20\.10\.38/);
    expect(seen[0]?.headers['x-youtube-client-name']).toBe('3');
  });

  it('retries a bot-checked answer until a good one comes', async () => {
    seen.length = 0;
    blocksLeft = 2;
    const answer = await innertube.call('player', { videoId: 'GJLlxj_dtq8' }, { client: 'IOS' });
    expect((answer.playabilityStatus as { status: string }).status).toBe('OK');
    expect(seen).toHaveLength(3);
  });

  it('reads only the members asked for, as the full parse has them', async () => {
    const members = ['playabilityStatus', 'captions', 'videoDetails', 'microformat'];
    const picked = await innertube.call('player', { videoId: 'GJLlxj_dtq8' }, { client: 'ANDROID', members });
    const full = await innertube.call('player', { videoId: 'GJLlxj_dtq8' }, { client: 'ANDROID' });
    expect(Object.keys(picked).sort()).toEqual(['captions', 'playabilityStatus', 'videoDetails']);
    expect(picked).toEqual({
      playabilityStatus: full.playabilityStatus,
      captions: full.captions,
      videoDetails: full.videoDetails,
    });
  });

  it.each([
    ['text', 'other than JSON'],
    ['truncated', 'other than JSON'],
    ['lenient', 'other than JSON'],
  ])('%s with members: 502 upstream_error (%s)', async (endpoint, message) => {
    const err = await innertube.call(endpoint, {}, { members: ['captions'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('upstream_error');
    expect((err as AppError).message).toContain(message);
  });

  it.each([
    ['player', 'a bot check', () => (blocksLeft = 99)],
    ['next', 'a bot check', () => {}],
    ['sorry', 'a bot check', () => {}],
    ['text', 'other than JSON', () => {}],
    ['bogus', 'HTTP 400', () => {}],
  ])('%s: 502 upstream_error (%s)', async (endpoint, message, arrange) => {
    arrange();
    const err = await innertube.call(endpoint, {}).catch((e: unknown) => e);
    blocksLeft = 0;
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('upstream_error');
    expect(errorStatus[(err as AppError).code]).toBe(502);
    expect((err as AppError).message).toContain(message);
  });
});
