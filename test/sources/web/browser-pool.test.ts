// The headless-browser pool on real Chromium against loopback sites: pages built by scripts, redirects,
// one render at a time when size is 1, aborts and time limits, a browser that dies, and above all the
// SSRF policy applied to everything the page asks for.
//
// As in test/net/ssrf.test.ts, an injected resolver plays the world's DNS and a CONNECT proxy whose
// tunnels all end at the loopback site plays "the internet", so a fetcher that refuses private
// addresses can still reach a "public" page and show what that page is not allowed to reach.
import { execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import type dns from 'node:dns';
import type http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { retryAfterHeader } from '../../../src/http/error-status.js';
import { ProxyPool } from '../../../src/net/proxies.js';
import { type HostLookup, SafeFetcher } from '../../../src/net/safe-fetch.js';
import { BrowserPool } from '../../../src/sources/web/browser-pool.js';
import { CHROMIUM_PATH, describeWithChromium } from '../../support/chromium.js';
import { type Loopback, type LoopbackProxy, startConnectProxy, startServer } from '../../support/loopback.js';

const worldDns: Record<string, dns.LookupAddress[]> = {
  'public.example': [{ address: '93.184.215.14', family: 4 }],
  'loopback.example': [{ address: '127.0.0.1', family: 4 }],
  'internal.example': [{ address: '10.0.0.7', family: 4 }],
  'metadata.example': [{ address: '169.254.169.254', family: 4 }],
};
const lookup: HostLookup = async (hostname) => {
  const found = worldDns[hostname];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return found;
};

interface Hit {
  path: string;
  at: number;
  cookie: string | undefined;
}

let site: Loopback;
/** Every request the site received, in order. */
const hits: Hit[] = [];
const hung: http.ServerResponse[] = [];
const paths = () => hits.map((h) => h.path);
const html = (body: string, title = 'Test page') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

/** A page that tries to reach private addresses every way a script can, and reports what happened. */
function leakyPage(port: number): string {
  const targets = [
    `http://127.0.0.1:${port}/secret/literal`,
    `http://[::ffff:7f00:1]:${port}/secret/mapped`,
    `http://loopback.example:${port}/secret/name`,
    'http://internal.example/secret/internal',
    'http://metadata.example/secret/metadata',
    `/redirect?to=${encodeURIComponent(`http://127.0.0.1:${port}/secret/redirect`)}`,
  ];
  return html(
    `<h1>Leaky page</h1><ul id="results"></ul>
<iframe src="http://127.0.0.1:${port}/secret/iframe"></iframe>
<script src="http://127.0.0.1:${port}/secret/script.js"></script>
<script>
  const results = document.getElementById('results');
  Promise.all(${JSON.stringify(targets)}.map((url) =>
    fetch(url, { mode: 'no-cors' }).then(() => 'reached', () => 'blocked')
      .then((outcome) => { const li = document.createElement('li'); li.textContent = outcome + ' ' + url; results.append(li); })
  )).then(() => { document.body.dataset.done = 'yes'; });
</script>`,
    'Leaky',
  );
}

beforeAll(async () => {
  site = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    hits.push({ path: req.url ?? '', at: Date.now(), cookie: req.headers.cookie });
    const send = (type: string, body: string, headers: http.OutgoingHttpHeaders = {}) =>
      res.writeHead(200, { 'content-type': type, ...headers }).end(body);
    switch (url.pathname) {
      case '/app':
        return send(
          'text/html; charset=utf-8',
          html('<div id="root"></div><script src="/app.js"></script>', 'Script app'),
        );
      case '/app.js':
        return send(
          'text/javascript',
          `fetch('/data.json').then((r) => r.json()).then((d) => {
             document.getElementById('root').innerHTML = '<p class="msg">' + d.message + '</p>';
           });`,
        );
      case '/data.json':
        return send('application/json', JSON.stringify({ message: 'Rendered by a script after a fetch' }));
      case '/old':
        return res.writeHead(301, { location: '/app', 'set-cookie': 'hop=1; Path=/' }).end();
      case '/redirect':
        return res.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
      case '/slow-app': {
        // A page whose content arrives 800 ms after its script asks for it.
        const n = url.searchParams.get('n');
        return send(
          'text/html',
          html(
            `<div id="root"></div><script>fetch('/slow-data?n=${n}').then((r) => r.text()).then((t) => { document.getElementById('root').textContent = t; });</script>`,
          ),
        );
      }
      case '/slow-data':
        setTimeout(() => {
          hits.push({
            path: `/slow-data-sent?n=${url.searchParams.get('n')}`,
            at: Date.now(),
            cookie: undefined,
          });
          send('text/plain', `slow data ${url.searchParams.get('n')}`);
        }, 800);
        return;
      case '/spin':
        // A script that never ends: the page never finishes loading and holds its render slot.
        return send('text/html', html('<p>Spinning</p><script>for (;;) {}</script>'));
      case '/hang':
        hung.push(res); // answered never (ended at teardown)
        return;
      case '/set-cookie':
        return send(
          'text/html',
          html(
            `<p id="echo"></p><script>fetch('/echo-cookie').then((r) => r.text()).then((t) => { document.getElementById('echo').textContent = 'echo: ' + t; });</script>`,
          ),
          { 'set-cookie': ['session=abc123; Path=/', 'theme=dark; Path=/'] },
        );
      case '/echo-cookie':
        return send('text/plain', req.headers.cookie ?? 'none');
      case '/show-cookie':
        return send('text/html', html(`<p>cookie: ${req.headers.cookie ?? 'none'}</p>`));
      case '/media':
        return send(
          'text/html',
          html(
            `<link rel="stylesheet" href="/style.css"><p>Media page</p>
<img src="/pixel.png"><video src="/clip.mp4" autoplay muted></video><audio src="/sound.mp3" autoplay></audio>`,
          ),
        );
      case '/style.css':
        return send(
          'text/css',
          `@font-face { font-family: Probe; src: url(/font.woff2) format('woff2'); }
           body { font-family: Probe, sans-serif; background: url(/bg.png); }`,
        );
      case '/leaky':
        return send('text/html', leakyPage(site.port));
      case '/navigate': {
        // A page whose script sends the browser elsewhere once it has loaded.
        const to = JSON.stringify(url.searchParams.get('to'));
        return send(
          'text/html',
          html(`<p>Start page</p><script>setTimeout(() => { location.href = ${to}; }, 50);</script>`),
        );
      }
      case '/pushstate':
        // A single-page app changing its URL without a navigation: still the document we fetched.
        return send(
          'text/html',
          html(`<p>Routed app</p><script>history.pushState({}, '', '/routed/view#top');</script>`),
        );
      case '/remember':
        // A page that leaves something behind everywhere a tab can keep it.
        return send(
          'text/html',
          html(`<p>Remembered</p><script>
  document.cookie = 'left=behind; Path=/';
  localStorage.setItem('left', 'behind');
  sessionStorage.setItem('left', 'behind');
  window.name = 'left-behind';
</script>`),
        );
      case '/recall':
        return send(
          'text/html',
          html(`<p id="out"></p><script>
  document.getElementById('out').textContent = 'recall: ' + JSON.stringify([document.cookie,
    localStorage.getItem('left'), sessionStorage.getItem('left'), window.name]);
</script>`),
        );
      case '/huge':
        // A small page whose script builds a document larger than any page we would fetch.
        return send(
          'text/html',
          html(`<script>document.body.textContent = 'x'.repeat(11 * 1024 * 1024);</script>`),
        );
      case '/language':
        return send('text/html', html(`<p>accept-language: ${req.headers['accept-language']}</p>`));
      default:
        return res.writeHead(404, { 'content-type': 'text/html' }).end(html('<p>Not here</p>'));
    }
  });
});

afterAll(async () => {
  for (const res of hung) res.destroy();
  await site.close();
});

describeWithChromium('BrowserPool', () => {
  describe('rendering (private network allowed, as in tests)', () => {
    let fetcher: SafeFetcher;
    let pool: BrowserPool;

    beforeAll(() => {
      fetcher = new SafeFetcher({ allowPrivateNetwork: true, lookup, timeoutMs: 5000 });
      pool = new BrowserPool({ chromiumPath: CHROMIUM_PATH, size: 2, fetcher });
    });

    afterAll(async () => {
      await pool.close();
      await fetcher.close();
    });

    it('renders a page built by a script from a fetched JSON, with the status and content type', async () => {
      const page = await pool.render(`${site.url}/app`);
      expect(page.html).toContain('<p class="msg">Rendered by a script after a fetch</p>');
      expect(page.url).toBe(`${site.url}/app`);
      expect(page.status).toBe(200);
      expect(page.contentType).toBe('text/html');
    });

    it('fetches everything through SafeFetcher: a name only its resolver knows renders', async () => {
      // Chromium's own resolver knows no names at all (and has no network); ours maps this one to loopback.
      const page = await pool.render(`http://loopback.example:${site.port}/app`);
      expect(page.html).toContain('Rendered by a script after a fetch');
      expect(page.url).toBe(`http://loopback.example:${site.port}/app`);
    });

    it('follows redirects to the final URL, keeping the cookies a hop sets', async () => {
      hits.length = 0;
      const page = await pool.render(`${site.url}/old`);
      expect(page.url).toBe(`${site.url}/app`);
      expect(page.status).toBe(200);
      expect(page.html).toContain('Rendered by a script after a fetch');
      expect(paths().slice(0, 2)).toEqual(['/old', '/app']);
      expect(hits[1]!.cookie).toBe('hop=1');
    });

    it('lets a script POST JSON to an API on another origin (Playwright answers the preflight itself)', async () => {
      const received: string[] = [];
      const api = await startServer((req, res) => {
        const cors = {
          'access-control-allow-origin': '*',
          'access-control-allow-headers': 'content-type, x-token',
          'access-control-allow-methods': 'POST',
        };
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          received.push(`${req.method} ${req.headers['x-token'] ?? ''} ${body}`);
          if (req.method === 'OPTIONS') return res.writeHead(204, cors).end();
          res
            .writeHead(200, { 'content-type': 'application/json', ...cors })
            .end(JSON.stringify({ echo: body }));
        });
      });
      const page = await startServer((_req, res) =>
        res.writeHead(200, { 'content-type': 'text/html' }).end(
          html(`<p id="out">waiting</p><script>
  fetch('${api.url}/api', { method: 'POST', headers: { 'content-type': 'application/json', 'x-token': 't1' }, body: JSON.stringify({ q: 'query' }) })
    .then((r) => r.json()).then((d) => { document.getElementById('out').textContent = 'api said ' + d.echo; },
      (e) => { document.getElementById('out').textContent = 'api failed ' + e; });
</script>`),
        ),
      );
      try {
        const rendered = await pool.render(`${page.url}/`);
        expect(rendered.html).toContain('api said {"q":"query"}');
        expect(received).toEqual(['POST t1 {"q":"query"}']);
      } finally {
        await api.close();
        await page.close();
      }
    });

    it('answers the status of a missing page', async () => {
      const page = await pool.render(`${site.url}/nowhere`);
      expect(page.status).toBe(404);
      expect(page.html).toContain('Not here');
    });

    it('sends the caller’s headers with every request', async () => {
      const page = await pool.render(`${site.url}/language`, {
        headers: { 'accept-language': 'de-DE,de;q=0.9' },
      });
      expect(page.html).toContain('accept-language: de-DE,de;q=0.9');
    });

    it('keeps cookies within a render and never shares them between renders', async () => {
      const first = await pool.render(`${site.url}/set-cookie`);
      expect(first.html).toContain('echo: session=abc123; theme=dark');
      const second = await pool.render(`${site.url}/show-cookie`);
      expect(second.html).toContain('cookie: none');
    });

    it('reuses a warm tab for the same account, wiped: nothing one render leaves is seen by the next', async () => {
      const own = new BrowserPool({ chromiumPath: CHROMIUM_PATH, size: 2, fetcher });
      try {
        const account = 'tab-reuse';
        const first = await own.render(`${site.url}/remember`, { account });
        expect(first.html).toContain('Remembered');
        await expect.poll(() => own.idleTabs).toBe(1);
        const second = await own.render(`${site.url}/recall`, { account });
        expect(second.html).toContain('recall: ["",null,null,""]');
        await expect.poll(() => own.idleTabs).toBe(1); // the same tab, back again
        // Another account never gets that tab: it opens its own.
        await own.render(`${site.url}/recall`, { account: 'someone-else' });
        await expect.poll(() => own.idleTabs).toBe(2);
      } finally {
        await own.close();
      }
    });

    it('refuses a document a script made larger than a fetched page may be, without bringing it over', async () => {
      const err = await pool.render(`${site.url}/huge`).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('payload_too_large');
      expect((err as AppError).message).toMatch(/more than 10485760/);
    });

    it('never fetches images, media or fonts', async () => {
      hits.length = 0;
      const page = await pool.render(`${site.url}/media`);
      expect(page.html).toContain('Media page');
      expect(paths()).toContain('/style.css'); // the stylesheet that asks for the font was loaded
      for (const skipped of ['/pixel.png', '/bg.png', '/font.woff2', '/clip.mp4', '/sound.mp3']) {
        expect(paths()).not.toContain(skipped);
      }
    });

    it('opens no connection of its own: preconnect, WebSocket and WebRTC reach nothing', async () => {
      let tcp = 0;
      let udp = 0;
      const raw = net.createServer((s) => {
        tcp++;
        s.destroy();
      });
      await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
      const port = (raw.address() as net.AddressInfo).port;
      const stun = dgram.createSocket('udp4').on('message', () => udp++);
      await new Promise<void>((resolve) => stun.bind(port, '127.0.0.1', resolve));
      const probe = await startServer((_req, res) =>
        res.writeHead(200, { 'content-type': 'text/html' }).end(
          html(`<link rel="preconnect" href="http://127.0.0.1:${port}"><p id="out">probing</p>
<script>
  const out = document.getElementById('out');
  const ws = new WebSocket('ws://127.0.0.1:${port}/');
  ws.onclose = () => out.append(' ws-closed');
  const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${port}' }] });
  pc.createDataChannel('probe');
  pc.createOffer().then((o) => pc.setLocalDescription(o));
  pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') out.append(' ice-done'); };
</script>`),
        ),
      );
      try {
        const page = await pool.render(`${probe.url}/`);
        expect(page.html).toContain('ws-closed');
        await new Promise((resolve) => setTimeout(resolve, 1000)); // time for stragglers
        expect({ tcp, udp }).toEqual({ tcp: 0, udp: 0 });
      } finally {
        raw.close();
        stun.close();
        await probe.close();
      }
    });

    it('gives up at the time limit with upstream_error, and stops at once when the caller aborts', async () => {
      const quick = new BrowserPool({ chromiumPath: CHROMIUM_PATH, size: 1, fetcher, timeoutMs: 5000 });
      try {
        // Launched, so the limit below measures the render alone. On a busy machine a first render may
        // itself run past the limit; the launch is what this line is for.
        await quick.render(`${site.url}/app`).catch(() => {});
        let started = Date.now();
        const err = await quick.render(`${site.url}/hang`).catch((e) => e);
        expect(err).toBeInstanceOf(AppError);
        expect(err.code).toBe('upstream_error');
        expect(err.message).toMatch(/longer than 5000 ms/);
        expect(Date.now() - started).toBeLessThan(6500);

        const controller = new AbortController();
        const reason = new Error('caller gave up');
        setTimeout(() => controller.abort(reason), 300);
        started = Date.now();
        await expect(quick.render(`${site.url}/hang`, { signal: controller.signal })).rejects.toBe(reason);
        expect(Date.now() - started).toBeLessThan(700);

        // The slot and the browser are free again.
        expect((await quick.render(`${site.url}/app`)).html).toContain('Rendered by a script');
      } finally {
        await quick.close();
      }
    });

    it('relaunches the browser when its process dies', async () => {
      await pool.render(`${site.url}/app`);
      const children = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], {
        encoding: 'utf8',
      })
        .split('\n')
        .filter((line) => line.includes('chromium') && line.includes('--remote-debugging-pipe'))
        .map((line) => Number(line.trim().split(/\s+/)[0]));
      expect(children).toHaveLength(1);
      process.kill(children[0]!, 'SIGKILL');
      // Asked at once, before the pool may have heard that the browser died: the render that meets
      // the dead browser (or its warm tab) is made again in a new one.
      const page = await pool.render(`${site.url}/app`);
      expect(page.html).toContain('Rendered by a script after a fetch');
      expect((await pool.render(`${site.url}/app`)).html).toContain('Rendered by a script after a fetch');
    });

    it('closes idempotently and refuses renders afterwards', async () => {
      const spare = new BrowserPool({ chromiumPath: CHROMIUM_PATH, size: 1, fetcher });
      await spare.render(`${site.url}/app`);
      await spare.close();
      await spare.close();
      await expect(spare.render(`${site.url}/app`)).rejects.toMatchObject({ code: 'service_unavailable' });
    });
  });

  describe('concurrency', () => {
    let fetcher: SafeFetcher;
    beforeAll(() => {
      fetcher = new SafeFetcher({ allowPrivateNetwork: true, timeoutMs: 5000 });
    });
    afterAll(() => fetcher.close());

    /** Two renders at once of pages that wait 800 ms for their data; the site's log of both. */
    async function twoAtOnce(size: number) {
      const pool = new BrowserPool({ chromiumPath: CHROMIUM_PATH, size, fetcher });
      try {
        await pool.render(`${site.url}/app`); // launch first, so both start from a warm browser
        hits.length = 0;
        const pages = await Promise.all([
          pool.render(`${site.url}/slow-app?n=1`),
          pool.render(`${site.url}/slow-app?n=2`),
        ]);
        expect(pages[0]!.html).toContain('slow data 1');
        expect(pages[1]!.html).toContain('slow data 2');
        const at = (path: string) => hits.find((h) => h.path === path)!.at;
        return {
          firstDataSent: at('/slow-data-sent?n=1'),
          secondPageAsked: at('/slow-app?n=2'),
        };
      } finally {
        await pool.close();
      }
    }

    // Two browser launches and four renders: 7 s on a quiet machine, several times that on a busy one.
    it('renders one page at a time with size 1 (and overlaps them with size 2)', {
      timeout: 120_000,
    }, async () => {
      const one = await twoAtOnce(1);
      expect(one.secondPageAsked).toBeGreaterThanOrEqual(one.firstDataSent);
      const two = await twoAtOnce(2);
      expect(two.secondPageAsked).toBeLessThan(two.firstDataSent);
    });

    it('serves waiters in order, and an aborted waiter leaves the queue', async () => {
      const pool = new BrowserPool({ chromiumPath: CHROMIUM_PATH, size: 1, fetcher });
      try {
        hits.length = 0;
        const holder = new AbortController();
        const held = pool.render(`${site.url}/hang`, { signal: holder.signal }).catch((e) => e);
        await new Promise((resolve) => setTimeout(resolve, 200));
        const quitter = new AbortController();
        const b = pool.render(`${site.url}/app?who=b`, { signal: quitter.signal }).catch((e) => e);
        const c = pool.render(`${site.url}/app?who=c`);
        const d = pool.render(`${site.url}/app?who=d`);
        const reason = new Error('b gave up');
        quitter.abort(reason);
        expect(await b).toBe(reason); // out of the queue while the slot is still held
        holder.abort(new Error('done holding'));
        await held;
        await Promise.all([c, d]);
        const order = paths().filter((p) => p.startsWith('/app?who='));
        expect(order).toEqual(['/app?who=c', '/app?who=d']);
      } finally {
        await pool.close();
      }
    });
  });

  describe('per-account limits', () => {
    let fetcher: SafeFetcher;
    beforeAll(() => {
      fetcher = new SafeFetcher({ allowPrivateNetwork: true, timeoutMs: 20_000 });
    });
    afterAll(() => fetcher.close());

    const until = async (done: () => boolean) => {
      const deadline = Date.now() + 10_000;
      while (!done()) {
        if (Date.now() > deadline) throw new Error(`waited in vain; the site saw ${paths().join(' ')}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const started = (prefix: string) => paths().filter((p) => p.startsWith(prefix)).length;

    it('an account stuck in script loops holds only its share: others are served, its extra render gets 429, a full pool 503', async () => {
      const pool = new BrowserPool({
        chromiumPath: CHROMIUM_PATH,
        size: 3,
        accountMax: 2,
        queueTimeoutMs: 1500,
        timeoutMs: 15_000,
        fetcher,
      });
      const holdA = new AbortController();
      const holdB = new AbortController();
      try {
        await pool.render(`${site.url}/app`); // launched, so the times below measure waiting and rendering
        hits.length = 0;
        // Account A asks for as many renders as the pool has, of pages that never finish.
        const spinning = [1, 2, 3].map((n) =>
          pool.render(`${site.url}/spin?n=${n}`, { account: 'A', signal: holdA.signal }).catch((e) => e),
        );
        await until(() => started('/spin') === 2);
        let at = Date.now();
        const b = await pool.render(`${site.url}/app?who=b`, { account: 'B' });
        expect(b.html).toContain('Rendered by a script after a fetch');
        // Without the per-account limit B waits behind A's third render until a stuck one reaches its
        // 15 s time limit; A's spinning pages slow everything on a small machine, hence the room.
        expect(Date.now() - at).toBeLessThan(10_000);
        // A's third render never started: refused once the queue wait is over, naming when to retry.
        at = Date.now();
        const third = await spinning[2];
        expect(Date.now() - at).toBeLessThan(2500);
        expect(third).toBeInstanceOf(AppError);
        expect(third.code).toBe('rate_limited');
        const retryAfter = Number(retryAfterHeader(third.retryAfterMs));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(15);
        expect(started('/spin')).toBe(2);

        // With B holding the last slot, a third account finds the pool full: 503, not 429.
        void pool.render(`${site.url}/hang?who=b`, { account: 'B', signal: holdB.signal }).catch(() => {});
        await until(() => started('/hang?who=b') === 1);
        const c = await pool.render(`${site.url}/app?who=c`, { account: 'C' }).catch((e) => e);
        expect(c).toBeInstanceOf(AppError);
        expect(c.code).toBe('service_unavailable');
        expect(Number(retryAfterHeader(c.retryAfterMs))).toBeGreaterThanOrEqual(1);
        expect(started('/app?who=c')).toBe(0);

        // Once the stuck renders end, their slots are free again.
        holdA.abort(new Error('done'));
        holdB.abort(new Error('done'));
        await Promise.all(spinning);
        expect((await pool.render(`${site.url}/app?who=a`, { account: 'A' })).html).toContain('Rendered');
      } finally {
        holdA.abort();
        holdB.abort();
        await pool.close();
      }
    }, 60_000);

    it('hands a freed slot to the account with the fewest renders running, ahead of older waiters', async () => {
      const pool = new BrowserPool({ chromiumPath: CHROMIUM_PATH, size: 2, accountMax: 2, fetcher });
      const holds = [new AbortController(), new AbortController()];
      try {
        await pool.render(`${site.url}/app`);
        hits.length = 0;
        // A takes the whole pool (its limit allows it) and queues two more.
        const held = holds.map((h, i) =>
          pool.render(`${site.url}/hang?who=a${i}`, { account: 'A', signal: h.signal }).catch(() => {}),
        );
        await until(() => started('/hang?who=a') === 2);
        const queuedA = [3, 4].map((n) => pool.render(`${site.url}/app?who=a${n}`, { account: 'A' }));
        await new Promise((resolve) => setTimeout(resolve, 100));
        const b = pool.render(`${site.url}/app?who=b`, { account: 'B' });
        await new Promise((resolve) => setTimeout(resolve, 100));
        holds[0]!.abort(new Error('done'));
        await b;
        holds[1]!.abort(new Error('done'));
        await Promise.all([...held, ...queuedA]);
        const order = paths().filter((p) => p.startsWith('/app?who='));
        expect(order[0]).toBe('/app?who=b');
        expect(new Set(order)).toEqual(new Set(['/app?who=b', '/app?who=a3', '/app?who=a4']));
      } finally {
        for (const h of holds) h.abort();
        await pool.close();
      }
    }, 60_000);
  });

  describe('SSRF (private network refused, as in production)', () => {
    let strict: SafeFetcher;
    let strictPool: BrowserPool;
    let internet: LoopbackProxy;
    let viaInternet: SafeFetcher;
    let internetPool: BrowserPool;

    beforeAll(async () => {
      strict = new SafeFetcher({ allowPrivateNetwork: false, lookup, timeoutMs: 5000 });
      strictPool = new BrowserPool({ chromiumPath: CHROMIUM_PATH, size: 1, fetcher: strict });
      internet = await startConnectProxy(() => `127.0.0.1:${site.port}`);
      viaInternet = new SafeFetcher({
        allowPrivateNetwork: false,
        lookup,
        timeoutMs: 5000,
        proxies: new ProxyPool([internet.url]),
      });
      internetPool = new BrowserPool({ chromiumPath: CHROMIUM_PATH, size: 2, fetcher: viaInternet });
    });

    afterAll(async () => {
      await Promise.all([strictPool.close(), internetPool.close()]);
      await Promise.all([strict.close(), viaInternet.close(), viaInternet.proxies?.close()]);
      await internet.close();
    });

    it('refuses a private address as the page to render, like a plain fetch would', async () => {
      hits.length = 0;
      for (const url of [
        `${site.url}/app`,
        `http://[::ffff:127.0.0.1]:${site.port}/app`,
        `http://localhost:${site.port}/app`,
        'http://169.254.169.254/latest/meta-data/',
        'file:///etc/passwd',
      ]) {
        const err = await strictPool.render(url).catch((e) => e);
        expect(err, url).toBeInstanceOf(AppError);
        expect(err.code, url).toBe('invalid_request');
      }
      expect(hits).toEqual([]);
    });

    it('refuses a name that resolves to a private address, checked when connecting', async () => {
      hits.length = 0;
      const err = await strictPool.render(`http://loopback.example:${site.port}/app`).catch((e) => e);
      expect(err).toBeInstanceOf(AppError);
      expect(err.code).toBe('invalid_request');
      expect(err.message).toMatch(
        /^Invalid parameter 'url': loopback\.example resolves to a non-public address \(.*UNFURL_ALLOW_PRIVATE_NETWORK=true\)$/,
      );
      expect(hits).toEqual([]);
    });

    it('renders a public page (through the stand-in internet), its script fetches included', async () => {
      const page = await internetPool.render('http://public.example/app');
      expect(page.html).toContain('Rendered by a script after a fetch');
      expect(page.url).toBe('http://public.example/app');
    });

    it('refuses a public page that redirects to a private address', async () => {
      for (const target of [
        `http://127.0.0.1:${site.port}/secret/first-hop`,
        'http://internal.example/secret/first-hop',
        `http://[::1]:${site.port}/secret/first-hop`,
      ]) {
        hits.length = 0;
        const url = `http://public.example/redirect?to=${encodeURIComponent(target)}`;
        const err = await internetPool.render(url).catch((e) => e);
        expect(err, target).toBeInstanceOf(AppError);
        expect(err.code, target).toBe('invalid_request');
        expect(paths(), target).toEqual([`/redirect?to=${encodeURIComponent(target)}`]);
      }
    });

    it('lets a public page reach nothing private: fetches, redirects, iframes and scripts are blocked', async () => {
      hits.length = 0;
      const page = await internetPool.render('http://public.example/leaky');
      expect(page.html).toContain('data-done="yes"');
      expect(page.html).not.toContain('reached ');
      expect(page.html.match(/<li>blocked /g)).toHaveLength(6);
      expect(paths().filter((p) => p.startsWith('/secret'))).toEqual([]);
      expect(paths()).toContain(
        `/redirect?to=${encodeURIComponent(`http://127.0.0.1:${site.port}/secret/redirect`)}`,
      );
      expect(new Set(internet.connects)).toEqual(new Set(['public.example:80']));
    });

    // Judged by the document the render ends on, not by the first navigation.
    const navigate = (to: string) => `http://public.example/navigate?to=${encodeURIComponent(to)}`;

    it('refuses a page whose script navigates the browser to a refused address (400 naming url)', async () => {
      for (const to of [
        `http://127.0.0.1:${site.port}/secret/navigated`,
        `http://internal.example/secret/navigated`,
        `http://public.example/redirect?to=${encodeURIComponent(`http://[::1]:${site.port}/secret/navigated`)}`,
      ]) {
        hits.length = 0;
        const err = await internetPool.render(navigate(to)).catch((e) => e);
        expect(err, to).toBeInstanceOf(AppError);
        expect(err, to).toMatchObject({ code: 'invalid_request', details: 'url' });
        expect(err.message, to).toContain('navigates to');
        expect(
          paths().filter((p) => p.startsWith('/secret')),
          to,
        ).toEqual([]);
      }
    });

    it('answers upstream_error when the script navigates to a page that fails or to no web page at all', async () => {
      for (const to of ['http://nowhere.example/', 'about:blank']) {
        const err = await internetPool.render(navigate(to)).catch((e) => e);
        expect(err, to).toBeInstanceOf(AppError);
        expect(err.code, to).toBe('upstream_error');
      }
    });

    it('renders the page a script navigates to when it loads, and a URL changed by pushState', async () => {
      const moved = await internetPool.render(navigate('http://public.example/app'));
      expect(moved.url).toBe('http://public.example/app');
      expect(moved.html).toContain('Rendered by a script after a fetch');
      const routed = await internetPool.render('http://public.example/pushstate');
      expect(routed.url).toBe('http://public.example/routed/view#top');
      expect(routed.html).toContain('Routed app');
      expect(routed.status).toBe(200);
    });

    it('answers the status of the document it ends on', async () => {
      const missing = await internetPool.render(navigate('http://public.example/nowhere'));
      expect(missing.url).toBe('http://public.example/nowhere');
      expect(missing.status).toBe(404);
    });

    it('(control) the same page does reach them when private networks are allowed, so the test would see a leak', async () => {
      const open = new SafeFetcher({
        allowPrivateNetwork: true,
        lookup,
        timeoutMs: 5000,
        proxies: new ProxyPool([internet.url]),
      });
      const pool = new BrowserPool({ chromiumPath: CHROMIUM_PATH, size: 1, fetcher: open });
      try {
        hits.length = 0;
        const page = await pool.render('http://public.example/leaky');
        expect(page.html.match(/<li>reached /g)).toHaveLength(6);
        const secrets = paths().filter((p) => p.startsWith('/secret/'));
        expect(new Set(secrets)).toEqual(
          new Set([
            '/secret/literal',
            '/secret/mapped',
            '/secret/name',
            '/secret/internal',
            '/secret/metadata',
            '/secret/redirect',
            '/secret/iframe',
            '/secret/script.js',
          ]),
        );
      } finally {
        await pool.close();
        await open.close();
        await open.proxies?.close();
      }
    });
  });
});
