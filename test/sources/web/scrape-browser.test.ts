// POST /v1/web/scrape with the browser, end to end through the real app and headless Chromium: a
// screenshot stored where job results live and fetched with the caller's key (or inline), actions
// whose outputs come back in order, waitFor and mobile, each screenshot billed, the stored file
// private to its account.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { describeWithChromium } from '../../support/chromium.js';
import { type Loopback, startServer } from '../../support/loopback.js';

let site: Loopback;
let t: TestApp;

const PAGE = `<!doctype html><html lang="en"><head><title>Counter</title><meta name="viewport" content="width=device-width"></head><body>
<h1>Counter</h1><p id="width"></p><p id="count">0 clicks</p>
<input id="name"><button id="more" onclick="document.getElementById('count').textContent = (++window.n) + ' clicks'">More</button>
<div style="height:3000px">tall</div>
<script>window.n = 0; document.getElementById('width').textContent = 'width ' + window.innerWidth;</script>
</body></html>`;

/** A PNG's width and height, from its IHDR chunk. */
function pngSize(data: Buffer): { width: number; height: number } {
  expect(data.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

beforeAll(async () => {
  site = await startServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
  });
  t = await createTestApp({ UNFURL_ALLOW_PRIVATE_NETWORK: 'true' });
});

afterAll(async () => {
  await t?.close();
  await site?.close();
});

const scrape = (key: string, body: Record<string, unknown>) =>
  t.call(key, { method: 'POST', url: '/v1/web/scrape', payload: body });

describeWithChromium('POST /v1/web/scrape in the browser', () => {
  it('stores a full-page screenshot its owner fetches with the key, and no one else; 2 credits', async () => {
    const { apiKey } = await t.register();
    const res = await scrape(apiKey, { url: `${site.url}/`, formats: ['markdown', 'screenshot@fullPage'] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-credits-charged']).toBe('2');
    const doc = res.json();
    expect(doc.markdown).toContain('0 clicks');
    expect(doc.screenshot).toMatch(/\/v1\/files\/file_[A-Za-z0-9]+$/);
    const path = new URL(doc.screenshot).pathname;
    const file = await t.call(apiKey, { method: 'GET', url: path });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    const { height } = pngSize(file.rawPayload);
    expect(height).toBeGreaterThan(3000);
    const other = await t.register();
    expect((await t.call(other.apiKey, { method: 'GET', url: path })).statusCode).toBe(404);
    expect((await t.call(null, { method: 'GET', url: path })).statusCode).toBe(401);
  });

  it('runs actions in order and answers their outputs; a phone renders at a phone’s width', async () => {
    const { apiKey } = await t.register();
    const res = await scrape(apiKey, {
      url: `${site.url}/`,
      mobile: true,
      waitFor: 100,
      formats: ['markdown', { type: 'screenshot', inline: true }],
      actions: [
        { type: 'click', selector: '#more' },
        { type: 'scrape' },
        { type: 'click', selector: '#more' },
        { type: 'screenshot' },
        { type: 'executeJavascript', script: 'return document.getElementById("count").textContent' },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    // 1 + the screenshot format + the screenshot action.
    expect(res.headers['x-credits-charged']).toBe('3');
    const doc = res.json();
    expect(doc.markdown).toContain('2 clicks');
    expect(doc.markdown).toMatch(/width \d{3}\b/);
    expect(Number(/width (\d+)/.exec(doc.markdown)![1])).toBeLessThan(500);
    expect(doc.screenshot).toMatch(/^data:image\/png;base64,/);
    expect(doc.actions.scrapes).toHaveLength(1);
    expect(doc.actions.scrapes[0].html).toContain('1 clicks');
    expect(doc.actions.screenshots).toHaveLength(1);
    expect(doc.actions.screenshots[0]).toMatch(/^data:image\/png;base64,/);
    expect(doc.actions.javascriptReturns).toEqual([{ type: 'string', value: '2 clicks' }]);
    expect(doc.metadata.cacheState).toBe('miss');
  });

  it('an action that fails names its index and reason, and nothing is charged', async () => {
    const { apiKey } = await t.register();
    const res = await scrape(apiKey, {
      url: `${site.url}/`,
      actions: [
        { type: 'wait', milliseconds: 10 },
        { type: 'click', selector: '#nowhere' },
      ],
    });
    expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
    expect(res.json().message).toContain('actions[1]');
    const account = (await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json();
    expect(account.credits).toBe(100);
  });

  it('refuses action lists over the limits before rendering, naming them', async () => {
    const { apiKey } = await t.register();
    const many = Array.from({ length: 51 }, () => ({ type: 'scrape' }));
    const waits = [
      { type: 'wait', milliseconds: 40_000 },
      { type: 'wait', milliseconds: 30_000 },
    ];
    for (const [actions, param] of [
      [many, 'actions'],
      [waits, 'actions'],
      [[{ type: 'click', selector: 'div[' }], 'actions[0]'],
    ] as const) {
      const res = await scrape(apiKey, { url: `${site.url}/`, actions, timeout: 180_000 });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().message).toContain(`'${param}`);
    }
  });
});
