// Bad monitor input on the default settings (private addresses refused): each is a 400 naming the
// parameter; nothing is kept, scheduled or charged.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestApp();
  ({ apiKey: key } = await t.register());
});
afterAll(() => t.close());

const api = (method: 'GET' | 'POST', url: string, payload?: object) =>
  t.call(key, { method, url, ...(payload && { payload }) });

const PAGE = { kind: 'page', target: 'https://example.com/pricing', every: '1h' };

it.each([
  ['an interval under the minimum (5 minutes)', { ...PAGE, every: '1m' }, 'every'],
  ['an interval that is not one', { ...PAGE, every: 'often' }, 'every'],
  ['an invalid cron', { ...PAGE, every: '61 * * * *' }, 'every'],
  ['a cron firing more often than the minimum', { ...PAGE, every: '* * * * *' }, 'every'],
  ['an unknown time zone', { ...PAGE, every: '0 9 * * 1-5', timezone: 'Mars/Olympus' }, 'timezone'],
  ['a time zone with an interval', { ...PAGE, timezone: 'Europe/Paris' }, 'timezone'],
  ['a schema that is not JSON Schema', { ...PAGE, schema: { type: 'bogus' } }, 'schema'],
  ['a webhook on a private address', { ...PAGE, webhookUrl: 'http://169.254.169.254/latest' }, 'webhookUrl'],
  ['a webhook on loopback', { ...PAGE, webhookUrl: 'http://127.0.0.1:9/hook' }, 'webhookUrl'],
  ['a page on a private address', { ...PAGE, target: 'http://10.0.0.1/admin' }, 'target'],
  ['a page that is not http(s)', { ...PAGE, target: 'file:///etc/passwd' }, 'target'],
  ["another kind's option", { ...PAGE, maxVideos: 3 }, 'maxVideos'],
  [
    'a diff without scrape',
    { kind: 'site', target: 'https://example.com/', every: '1h', diff: true },
    'diff',
  ],
  ['an unknown kind', { ...PAGE, kind: 'tweet' }, 'kind'],
  ['an unknown field', { ...PAGE, colour: 'red' }, 'colour'],
])('refuses %s', async (_what, body, param) => {
  const before = (await api('GET', '/v1/account')).json().credits;
  const res = await api('POST', '/v1/monitors', body);
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toMatchObject({ error: 'invalid_request', details: param });
  expect((await api('GET', '/v1/monitors')).json().monitors).toEqual([]);
  expect((await api('GET', '/v1/account')).json().credits).toBe(before);
});
