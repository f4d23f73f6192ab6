// Page actions, waitFor, a phone's screen and screenshots in the browser pool, on real Chromium
// against a loopback site: a form, buttons, an infinite scroll, a long page, scripts. One pool serves
// every test; its fetcher refuses private addresses (as in production) and reaches the site as
// "public.example" through a CONNECT proxy playing the internet (as in browser-pool.test.ts), so the
// test of a script's fetch to a private address is the real SSRF guard at work.
import type dns from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { ProxyPool } from '../../../src/net/proxies.js';
import { type HostLookup, SafeFetcher } from '../../../src/net/safe-fetch.js';
import type { PageAction } from '../../../src/sources/web/actions.js';
import { BrowserPool, type RenderOptions } from '../../../src/sources/web/browser-pool.js';
import { CHROMIUM_PATH, describeWithChromium } from '../../support/chromium.js';
import { type Loopback, type LoopbackProxy, startConnectProxy, startServer } from '../../support/loopback.js';

const worldDns: Record<string, dns.LookupAddress[]> = {
  'public.example': [{ address: '93.184.215.14', family: 4 }],
  'metadata.example': [{ address: '169.254.169.254', family: 4 }],
};
const lookup: HostLookup = async (hostname) => {
  const found = worldDns[hostname];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return found;
};

const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const ORIGIN = 'http://public.example';
const page = (body: string, title = 'Test page') =>
  `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head><body>${body}</body></html>`;

/** A PNG's width and height, from its IHDR chunk (and that it is a PNG at all). */
function pngSize(png: Buffer | undefined): { width: number; height: number } {
  expect(png).toBeInstanceOf(Buffer);
  expect(png!.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect(png!.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: png!.readUInt32BE(16), height: png!.readUInt32BE(20) };
}

const FORM = page(
  `<p id="size"></p><p id="agent"></p>
<form id="f"><input id="q" name="q"><button id="go" type="submit">Go</button></form>
<p id="out">nothing yet</p>
<button class="inc">one</button><button class="inc">two</button><button class="inc">three</button>
<button id="hidden" style="display:none">hidden</button>
<a id="next" href="/second">next page</a>
<script>
  document.getElementById('size').textContent = 'width ' + window.innerWidth + ' touch ' + navigator.maxTouchPoints;
  document.getElementById('agent').textContent = navigator.userAgent;
  document.getElementById('f').addEventListener('submit', (e) => {
    e.preventDefault();
    document.getElementById('out').textContent = 'submitted: ' + document.getElementById('q').value;
  });
  for (const b of document.querySelectorAll('.inc')) b.addEventListener('click', () => b.classList.add('done'));
  setTimeout(() => { const p = document.createElement('p'); p.id = 'late'; p.textContent = 'late arrival'; document.body.append(p); }, 300);
</script>`,
  'Form',
);

/** 40 items, then 20 more fetched each time the end of the list scrolls into view. */
const FEED = page(
  `<ul id="feed"></ul><div id="end">end</div>
<script>
  const feed = document.getElementById('feed');
  const add = (items) => { for (const t of items) { const li = document.createElement('li'); li.textContent = t; li.style.height = '40px'; feed.append(li); } };
  add(Array.from({ length: 40 }, (_, i) => 'item ' + i));
  let next = 1, loading = false;
  new IntersectionObserver((entries) => {
    if (!entries[0].isIntersecting || loading) return;
    loading = true;
    fetch('/feed-more?page=' + next++).then((r) => r.json()).then((items) => { add(items); loading = false; });
  }).observe(document.getElementById('end'));
</script>`,
  'Feed',
);

/** About 20,000 px of text. */
const LONG = page(
  `<style>p { margin: 0; height: 25px; font: 16px sans-serif; }</style>${Array.from(
    { length: 800 },
    (_, i) => `<p>Line ${i} of a long page of text that goes on and on, for the full-page screenshot.</p>`,
  ).join('')}`,
  'Long',
);

let site: Loopback;
let internet: LoopbackProxy;
let fetcher: SafeFetcher;
let pool: BrowserPool;
/** Every request the site received, as "path at time". */
const hits: { path: string; at: number }[] = [];
const paths = () => hits.map((h) => h.path);

beforeAll(async () => {
  site = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    hits.push({ path: req.url ?? '', at: Date.now() });
    const send = (type: string, body: string | Buffer) =>
      res.writeHead(200, { 'content-type': type }).end(body);
    switch (url.pathname) {
      case '/form':
        return send('text/html', FORM);
      case '/second':
        return send('text/html', page('<p id="second">The second page</p>', 'Second'));
      case '/feed':
        return send('text/html', FEED);
      case '/feed-more': {
        const n = Number(url.searchParams.get('page'));
        return send(
          'application/json',
          JSON.stringify(Array.from({ length: 20 }, (_, i) => `more ${n}.${i}`)),
        );
      }
      case '/long':
        return send('text/html', LONG);
      case '/image':
        return send(
          'text/html',
          page(
            `<img src="/pixel.png" onload="document.body.dataset.img = 'loaded'" onerror="document.body.dataset.img = 'failed'">`,
          ),
        );
      case '/pixel.png':
        return send('image/png', PIXEL);
      case '/slow':
        return send('text/html', page(`<p id="slow">slow page ${url.searchParams.get('who')}</p>`));
      default:
        return res.writeHead(404, { 'content-type': 'text/html' }).end(page('<p>Not here</p>'));
    }
  });
  internet = await startConnectProxy(() => `127.0.0.1:${site.port}`);
  fetcher = new SafeFetcher({
    allowPrivateNetwork: false,
    lookup,
    timeoutMs: 5000,
    proxies: new ProxyPool([internet.url]),
  });
  // Short limits so that failures and time limits are quick to show: 4 s per render (plus what its
  // waiting and actions add), 1.5 s per action; one render per account at a time.
  pool = new BrowserPool({
    chromiumPath: CHROMIUM_PATH,
    size: 2,
    accountMax: 1,
    fetcher,
    timeoutMs: 4000,
    actionTimeoutMs: 1500,
  });
});

afterAll(async () => {
  await pool?.close();
  await fetcher?.close();
  await fetcher?.proxies?.close();
  await internet?.close();
  await site?.close();
});

async function refusal(url: string, opts: RenderOptions): Promise<AppError> {
  const err = await pool.render(url, opts).catch((e: unknown) => e);
  expect(err, JSON.stringify(opts.actions)).toBeInstanceOf(AppError);
  return err as AppError;
}

describeWithChromium('BrowserPool with page actions', () => {
  it('runs each action in order and answers what they produced', async () => {
    await pool.render(`${ORIGIN}/second`); // the browser launched, so that the timing below is a render's
    const actions: PageAction[] = [
      { type: 'wait', selector: '#late' },
      { type: 'click', selector: '#q' },
      { type: 'write', text: 'hello world' },
      { type: 'press', key: 'Enter' },
      { type: 'scrape' },
      { type: 'click', selector: '.inc', all: true },
      { type: 'executeJavascript', script: 'return document.querySelectorAll(".inc.done").length' },
      { type: 'executeJavascript', script: 'document.title' },
      {
        type: 'executeJavascript',
        script: 'new Promise((r) => setTimeout(() => r({ a: [1, "x", null] }), 50))',
      },
      { type: 'executeJavascript', script: 'undefined' },
      { type: 'executeJavascript', script: 'const o = {}; o.self = o; return o' },
      { type: 'executeJavascript', script: '10n ** 30n' },
      { type: 'click', selector: '#q' },
      { type: 'press', key: 'Control+a' },
      { type: 'write', text: `${'long '.repeat(1999)}end` },
      { type: 'executeJavascript', script: 'document.getElementById("q").value.length' },
      { type: 'executeJavascript', script: 'const k = 2; k * 21' },
      {
        type: 'executeJavascript',
        script: 'const k = 3; await new Promise((r) => setTimeout(r, 10)); return k * 14',
      },
      { type: 'wait', milliseconds: 100 },
      { type: 'screenshot' },
    ];
    const started = Date.now();
    const rendered = await pool.render(`${ORIGIN}/form`, { actions });
    const took = Date.now() - started;
    console.log(`render with ${actions.length} actions: ${took} ms`);
    expect(rendered.status).toBe(200);
    expect(rendered.html).toContain('submitted: hello world');
    expect(rendered.html).toContain('class="inc done"');
    const outputs = rendered.actions!;
    expect(outputs.scrapes).toHaveLength(1);
    expect(outputs.scrapes[0]!.url).toBe(`${ORIGIN}/form`);
    expect(outputs.scrapes[0]!.html).toContain('submitted: hello world');
    expect(outputs.scrapes[0]!.html).not.toContain('class="inc done"'); // taken before the clicks
    expect(outputs.javascriptReturns).toEqual([
      { type: 'number', value: 3 },
      { type: 'string', value: 'Form' },
      { type: 'object', value: { a: [1, 'x', null] } },
      { type: 'undefined', value: null },
      { type: 'string', value: '[object Object]' },
      { type: 'string', value: '1000000000000000000000000000000' },
      { type: 'number', value: 9_998 },
      { type: 'number', value: 42 },
      { type: 'number', value: 42 },
    ]);
    expect(outputs.screenshots).toHaveLength(1);
    expect(pngSize(outputs.screenshots[0])).toEqual({ width: 1280, height: 720 });
    expect(rendered.screenshot).toBeUndefined();

    // Five actions, timed: a click, typing, a key, a script, a snapshot.
    const five = Date.now();
    const quick = await pool.render(`${ORIGIN}/form`, {
      actions: [
        { type: 'click', selector: '#q' },
        { type: 'write', text: 'five' },
        { type: 'press', key: 'Enter' },
        { type: 'executeJavascript', script: 'document.getElementById("out").textContent' },
        { type: 'scrape' },
      ],
    });
    console.log(`render with 5 actions: ${Date.now() - five} ms`);
    expect(quick.actions!.javascriptReturns).toEqual([{ type: 'string', value: 'submitted: five' }]);
  }, 60_000);

  it('follows a click that navigates, and scrolls an infinite list to fetch more of it', async () => {
    const moved = await pool.render(`${ORIGIN}/form`, {
      actions: [{ type: 'click', selector: '#next' }, { type: 'scrape' }],
    });
    expect(moved.url).toBe(`${ORIGIN}/second`);
    expect(moved.html).toContain('The second page');
    expect(moved.actions!.scrapes[0]).toMatchObject({ url: `${ORIGIN}/second` });

    hits.length = 0;
    const fed = await pool.render(`${ORIGIN}/feed`, {
      actions: [
        { type: 'scroll' },
        { type: 'scroll', direction: 'down' },
        { type: 'scroll', selector: '#end' },
        { type: 'wait', selector: 'li:nth-child(61)' },
        { type: 'executeJavascript', script: 'document.querySelectorAll("#feed li").length' },
        { type: 'scroll', direction: 'up' },
        { type: 'executeJavascript', script: 'window.scrollY' },
      ],
    });
    expect(paths()).toContain('/feed-more?page=1');
    const [count, scrollY] = fed.actions!.javascriptReturns;
    expect(count!.value as number).toBeGreaterThanOrEqual(60);
    expect(fed.html).toContain('more 1.19');
    expect(typeof scrollY!.value).toBe('number');
  }, 60_000);

  it('takes screenshots: the screen, the full page cut at 16,384 px, quickly; images load only for them', async () => {
    const screen = await pool.render(`${ORIGIN}/long`, { screenshot: { fullPage: false } });
    expect(pngSize(screen.screenshot)).toEqual({ width: 1280, height: 720 });

    let started = Date.now();
    await pool.render(`${ORIGIN}/long`);
    const plainMs = Date.now() - started;
    started = Date.now();
    const full = await pool.render(`${ORIGIN}/long`, { screenshot: { fullPage: true } });
    const took = Date.now() - started;
    console.log(
      `a 20,000 px page: render ${plainMs} ms, with a full-page screenshot ${took} ms (${full.screenshot!.length} bytes)`,
    );
    const size = pngSize(full.screenshot);
    expect(size.height).toBe(16_384);
    expect(size.width).toBeGreaterThan(1200);
    expect(size.width).toBeLessThanOrEqual(1280);
    expect(took - plainMs).toBeLessThan(8000); // the screenshot's part (see the timings logged)

    hits.length = 0;
    const plain = await pool.render(`${ORIGIN}/image`);
    expect(plain.html).toContain('data-img="failed"');
    expect(paths()).not.toContain('/pixel.png');
    const shot = await pool.render(`${ORIGIN}/image`, { actions: [{ type: 'screenshot', fullPage: true }] });
    expect(shot.html).toContain('data-img="loaded"');
    expect(paths()).toContain('/pixel.png');
    // A page shorter than the screen: the full page is the screen.
    expect(pngSize(shot.actions!.screenshots[0])).toEqual({ width: 1280, height: 720 });
  }, 60_000);

  it("renders as a phone: a phone's screen, touch and user agent, its screenshots at device scale 2", async () => {
    const desktop = await pool.render(`${ORIGIN}/form`);
    expect(desktop.html).toContain('width 1280 touch 0');
    expect(desktop.html).not.toMatch(/<p id="agent">[^<]*Mobile/);
    const phone = await pool.render(`${ORIGIN}/form`, { mobile: true, screenshot: { fullPage: false } });
    expect(phone.html).toContain('width 390 touch');
    expect(phone.html).not.toContain('touch 0');
    expect(phone.html).toMatch(
      /<p id="agent">Mozilla\/5\.0 \(Linux; Android[^<]*Chrome\/\d+\.0\.0\.0 Mobile Safari/,
    );
    expect(pngSize(phone.screenshot)).toEqual({ width: 780, height: 1688 });
    const long = await pool.render(`${ORIGIN}/long`, { mobile: true, screenshot: { fullPage: true } });
    expect(pngSize(long.screenshot).height).toBe(16_384); // 8,192 CSS px at scale 2
  }, 60_000);

  it('fails an action with its index and reason: invalid_request when the input is at fault', async () => {
    const url = `${ORIGIN}/form`;
    const cases: [PageAction[], string, RegExp][] = [
      [
        [{ type: 'scrape' }, { type: 'scrape' }, { type: 'click', selector: '#missing' }],
        'actions[2]',
        /^Invalid parameter 'actions\[2\]': no element matches "#missing" \(waited 1500 ms\)$/,
      ],
      [
        [{ type: 'click', selector: '#hidden' }],
        'actions[0]',
        /could not be clicked within 1500 ms \(hidden, disabled or covered\)$/,
      ],
      [[{ type: 'wait', selector: '.never' }], 'actions[0]', /no element matches "\.never" after 1500 ms$/],
      // linkedom lets this through; Chromium's parser does not, and nothing has run yet.
      [
        [{ type: 'scrape' }, { type: 'click', selector: 'text=Go' }],
        'actions[1].selector',
        /"text=Go" is not a CSS selector$/,
      ],
      [[{ type: 'write', text: 'x' }], 'actions[0]', /no element has the focus/],
      [[{ type: 'press', key: 'Bogus' }], 'actions[0].key', /"Bogus" is not a key Playwright knows/],
      [
        [{ type: 'scrape' }, { type: 'executeJavascript', script: 'throw new Error("boom")' }],
        'actions[1]',
        /^Invalid parameter 'actions\[1\]': the script threw: .*boom/,
      ],
      [[{ type: 'executeJavascript', script: 'return (' }], 'actions[0].script', /not valid JavaScript/],
      // A SyntaxError thrown as it runs is the script's, not a reason to run it again as a function body.
      [
        [{ type: 'executeJavascript', script: 'JSON.parse("{")' }],
        'actions[0]',
        /the script threw: SyntaxError: .*JSON/,
      ],
      [
        [{ type: 'executeJavascript', script: '"x".repeat(200000)' }],
        'actions[0]',
        /returned 200002 characters of JSON, more than 100000$/,
      ],
      [
        [{ type: 'executeJavascript', script: 'for (;;) {}' }],
        'actions[0]',
        /the script ran for over 1500 ms$/,
      ],
    ];
    for (const [actions, param, message] of cases) {
      const err = await refusal(url, { actions });
      expect(err.code, param).toBe('invalid_request');
      expect(err.details, param).toBe(param);
      expect(err.message, param).toMatch(message);
    }
    // Checked before any browser work, with the prefix the caller gives.
    const early = await refusal(url, {
      actions: [{ type: 'wait', milliseconds: 30_000 }],
      waitFor: 40_000,
      actionsParam: 'scrapeOptions.actions',
    });
    expect(early.details).toBe('scrapeOptions.actions');
    expect((await refusal(url, { waitFor: 60_001 })).details).toBe('waitFor');
    // The pool is fine after all that (the looping script's page was closed with its context).
    expect((await pool.render(url)).html).toContain('nothing yet');
  }, 120_000);

  it("a script's fetches go through the SSRF guard: private and metadata addresses are refused", async () => {
    hits.length = 0;
    const rendered = await pool.render(`${ORIGIN}/form`, {
      actions: [
        {
          type: 'executeJavascript',
          script: `const urls = ['http://169.254.169.254/latest/meta-data/', 'http://metadata.example/latest/',
              'http://127.0.0.1:${site.port}/secret', 'http://[::1]:${site.port}/secret', '${ORIGIN}/second'];
            return Promise.all(urls.map((u) => fetch(u).then((r) => r.status, () => 'blocked')));`,
        },
      ],
    });
    expect(rendered.actions!.javascriptReturns).toEqual([
      { type: 'object', value: ['blocked', 'blocked', 'blocked', 'blocked', 200] },
    ]);
    expect(paths().filter((p) => p.includes('secret'))).toEqual([]);
    expect(paths()).toContain('/second');
  }, 60_000);

  it("grows the render's time limit by its waiting, and renders with actions share slots fairly", async () => {
    // 4 s is the pool's limit; 3 s of waitFor and 2 s of waiting after do not cut it.
    const waited = await pool.render(`${ORIGIN}/form`, {
      waitFor: 3000,
      actions: [{ type: 'wait', milliseconds: 2000 }, { type: 'scrape' }],
    });
    expect(waited.actions!.scrapes[0]!.html).toContain('late arrival');

    // Account A may render one page at a time (accountMax 1, size 2): its second render waits for its
    // first, which holds its slot while it waits; B's render goes ahead of A's second meanwhile.
    hits.length = 0;
    const hold: RenderOptions = { account: 'A', actions: [{ type: 'wait', milliseconds: 1500 }] };
    const done: string[] = [];
    const track = (who: string, p: Promise<unknown>) => p.then(() => done.push(who));
    const a1 = track('a1', pool.render(`${ORIGIN}/slow?who=a1`, hold));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const a2 = track('a2', pool.render(`${ORIGIN}/slow?who=a2`, hold));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const b = track(
      'b',
      pool.render(`${ORIGIN}/slow?who=b`, { account: 'B', actions: [{ type: 'scrape' }] }),
    );
    await Promise.all([a1, a2, b]);
    expect(done).toEqual(['b', 'a1', 'a2']);
    const at = (who: string) => hits.find((h) => h.path === `/slow?who=${who}`)!.at;
    expect(at('a2') - at('a1')).toBeGreaterThanOrEqual(1400); // a2 started once a1 was done
    expect(at('b')).toBeLessThan(at('a2'));
  }, 60_000);
});

describe('BrowserPool with page actions, without a browser', () => {
  it('refuses bad actions before launching anything', async () => {
    const plain = new SafeFetcher({ allowPrivateNetwork: false });
    const idle = new BrowserPool({ chromiumPath: '/nonexistent/chromium', size: 1, fetcher: plain });
    const err = await idle
      .render('http://public.example/', { actions: [{ type: 'click', selector: 'div[' }] })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'invalid_request', details: 'actions[0].selector' });
    await idle.close();
    await plain.close();
  });
});
