// A channel monitor end to end against a replay of the platform's captured channel page: the first
// check sets the baseline (nothing reported, one listing charged); the channel then gains its newest
// video (the replay had held it back), and the next check reports it once — with its metadata and
// its transcript — to the webhook, within one interval + 30 s. Checks after that report nothing.
// Bad input is refused before anything is scheduled or charged.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobProcessing, startJobProcessing } from '../../src/jobs/processing.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { disposeEnv } from '../support/job-processes.js';
import { quietLogger } from '../support/quiet-logger.js';
import { CAPTURES, startYouTubeReplay, type YouTubeReplay } from '../support/youtube-replay.js';

const CHANNEL = 'UCs6nmQViDpUw0nuIx9c_WvA'; // the captured Videos tab (30 videos)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const hidden = new Set<string>();
/** The new video's player and watch page: the captured ones (another video's) stand in for it. */
const players: Record<string, Record<string, string>> = {};
const watch: Record<string, string> = {};
let replay: YouTubeReplay;
let t: TestApp;
let processing: JobProcessing;
let key: string;
const hooks: Array<{ body: string; at: number }> = [];
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    hooks.push({ body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
    res.writeHead(200).end('ok');
  });
});
let hookUrl = '';
let newest = '';

beforeAll(async () => {
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  replay = await startYouTubeReplay({ hiddenVideos: hidden, players, watch });
  t = await createTestApp({
    UNFURL_UPSTREAM_YOUTUBE: replay.url,
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
    UNFURL_UPSTREAM_CACHE_TTL_SECONDS: '0',
    UNFURL_MONITOR_MIN_INTERVAL: '1s',
    UNFURL_MONITOR_POLL_MS: '50',
    UNFURL_JOB_POLL_MS: '50',
    UNFURL_ACCOUNT_MAX_MONITOR_CHECKS_PER_HOUR: '100000',
  });
  processing = await startJobProcessing(t.services, quietLogger);
  ({ apiKey: key } = await t.register());
  // The channel's newest video, as the listing route sees it; the replay holds it back until asked.
  const listed = await t.call(key, {
    method: 'GET',
    url: `/v1/vidsite/channel/videos?id=${CHANNEL}&limit=5`,
  });
  expect(listed.statusCode, listed.body).toBe(200);
  newest = listed.json().videoIds[0];
  expect(newest).toMatch(/^[\w-]{11}$/);
  hidden.add(newest);
  players[newest] = { '*': CAPTURES.playerOk };
  watch[newest] = CAPTURES.watchPage;
});

afterAll(async () => {
  await t.app.close();
  await processing.stop();
  await t.services.close();
  await disposeEnv(t.env);
  await replay.close();
  receiver.closeAllConnections();
  await new Promise<void>((r) => receiver.close(() => r()));
});

const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
  t.call(key, { method, url, ...(payload && { payload }) });
const credits = async () => (await api('GET', '/v1/account')).json().credits as number;

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('a channel monitor', () => {
  it('reports the video the channel gains, once, with its metadata and transcript', async () => {
    const before = await credits();
    const created = await api('POST', '/v1/monitors', {
      kind: 'channel',
      target: CHANNEL,
      every: '2s',
      webhookUrl: hookUrl,
      transcript: { mode: 'native' },
      maxVideos: 5,
    });
    expect(created.statusCode, created.body).toBe(201);
    const m = created.json();
    expect(m).toMatchObject({ kind: 'channel', target: CHANNEL, transcript: { mode: 'native' } });
    expect(m.name).toBeTruthy();

    // The baseline: one check, nothing reported, the listing charged.
    await waitFor('the baseline', async () => {
      const now = (await api('GET', `/v1/monitors/${m.id}`)).json();
      // Counted when it records what it found, a moment before its job ends (and is billed).
      return now.checks >= 1 && !['queued', 'active'].includes(now.lastChecks[0]?.status) ? true : undefined;
    });
    const listing = (await api('GET', `/v1/monitors/${m.id}`)).json().lastChecks.at(-1);
    expect(listing).toMatchObject({ status: 'completed', cost: 1 });
    expect(await credits()).toBe(before - 1);

    // The channel gains its newest video.
    hidden.delete(newest);
    const gained = Date.now();
    const hook = await waitFor('the webhook', async () =>
      hooks.find((h) => JSON.parse(h.body).type === 'video.new'),
    );
    expect(hook.at - gained).toBeLessThan(2_000 + 30_000);
    const event = JSON.parse(hook.body);
    expect(event.data).toMatchObject({ monitorId: m.id, videoId: newest });
    expect(event.data.video.id).toBeTruthy();
    expect(event.data.transcript.source).toBe('captions');
    expect(String(event.data.transcript.content).length).toBeGreaterThan(20);

    // Later checks report nothing more.
    const checks = (await api('GET', `/v1/monitors/${m.id}`)).json().checks;
    await waitFor('two more checks', async () =>
      (await api('GET', `/v1/monitors/${m.id}`)).json().checks >= checks + 2 ? true : undefined,
    );
    const events = (await api('GET', `/v1/monitors/${m.id}/events`)).json().events;
    expect(events.map((e: { type: string }) => e.type)).toEqual(['video.new']);
    expect(events[0].delivery).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(hooks.filter((h) => JSON.parse(h.body).type === 'video.new')).toHaveLength(1);
    await api('DELETE', `/v1/monitors/${m.id}`);
  }, 90_000);

  it('refuses an unknown channel or playlist with a 404 naming target, scheduling and charging nothing', async () => {
    const before = await credits();
    for (const body of [
      { kind: 'channel', target: 'UCxxxxxxxxxxxxxxxxxxxxxx', every: '1h' },
      { kind: 'playlist', target: 'PLdoesnotexist000000000000000000', every: '1h' },
    ]) {
      const res = await api('POST', '/v1/monitors', body);
      expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).toBe(404);
      expect(res.json().details).toBe('target');
    }
    expect((await api('GET', '/v1/monitors')).json().monitors).toEqual([]);
    expect(await credits()).toBe(before);
  });
});
