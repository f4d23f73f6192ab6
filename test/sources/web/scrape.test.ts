// GET /v1/web/scrape end to end: a real app on a fresh database, fetching from a loopback site that
// plays the web (articles, redirects, charsets, compression, huge and slow pages, walls, non-HTML).
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJobProcessing } from '../../../src/jobs/processing.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { describeWithChromium } from '../../support/chromium.js';
import { type Loopback, startServer } from '../../support/loopback.js';
import { textPdf } from '../../support/pdf.js';
import { quietLogger } from '../../support/quiet-logger.js';

let site: Loopback;
let t: TestApp;
let key: string;
const hits = new Map<string, number>();
const seenHeaders = new Map<string, Record<string, string | string[] | undefined>>();

const ARTICLE = `<!doctype html><html lang="en"><head>
<meta charset="utf-8"><title>Tide pools of the north coast</title>
<meta name="description" content="A field guide to the rock pools.">
<meta property="og:url" content="/articles/tide-pools">
<meta property="og:image" content="/img/cover.jpg">
</head><body>
<nav><a href="/">Home</a> <a href="/about">About</a> <a href="/about#team">Team</a></nav>
<article>
<h1>Tide pools of the north coast</h1>
<p>At low tide the rock shelves of the north coast open into hundreds of pools, each a small world of
anemones, crabs and sea stars. This guide explains where to look and how to look without harm. 🦀</p>
<p>Read the <a href="/guides/safety">safety guide</a> first, and check the <a href="https://tides.example.org/table">tide table</a>.
Pools nearest the water line hold the richest life, because they are covered longest by the sea.</p>
<h2>What lives there</h2>
<table><thead><tr><th>Animal</th><th>Zone</th></tr></thead>
<tbody><tr><td>Sea star</td><td>Low</td></tr><tr><td>Barnacle</td><td>High</td></tr></tbody></table>
<p>Walk on bare rock, never on the animals, and put back every stone you turn. Visitors who follow these
rules leave the pools as rich as they found them, season after season, for everyone who comes after.</p>
<img src="/img/anemone.jpg" alt="An anemone">
</article>
<footer><a href="/privacy">Privacy</a></footer>
</body></html>`;

// "Привет, мир" in windows-1251 and "日本語のページ" in Shift_JIS, as the bytes such sites send.
const CP1251 = Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2, 0x2c, 0x20, 0xec, 0xe8, 0xf0]);
const SJIS = Buffer.from([
  0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea, 0x82, 0xcc, 0x83, 0x79, 0x81, 0x5b, 0x83, 0x57,
]);
const page = (title: string, body: string) =>
  `<html><head><title>${title}</title></head><body><p>${body}</p></body></html>`;

beforeAll(async () => {
  site = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    seenHeaders.set(url.pathname, req.headers);
    const html = (body: string | Buffer, type = 'text/html; charset=utf-8', status = 200) =>
      res.writeHead(status, { 'content-type': type }).end(body);
    switch (url.pathname) {
      case '/article':
        return html(ARTICLE);
      case '/old':
        return res.writeHead(301, { location: '/moved/here' }).end();
      case '/moved/here':
        return html(page('Moved', 'You found the new place of this page after a redirect.'));
      case '/cp1251':
        return html(
          Buffer.concat([Buffer.from('<html><body><p>'), CP1251, Buffer.from('</p></body></html>')]),
          'text/html; charset=windows-1251',
        );
      case '/sjis':
        return html(
          Buffer.concat([
            Buffer.from('<html><head><meta charset="Shift_JIS"></head><body><p>'),
            SJIS,
            Buffer.from('</p></body></html>'),
          ]),
          'text/html',
        );
      case '/gzip':
        return res
          .writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' })
          .end(zlib.gzipSync(page('Gzip', 'Compressed with gzip and decoded on the way in.')));
      case '/brotli':
        return res
          .writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'br' })
          .end(zlib.brotliCompressSync(page('Brotli', 'Compressed with brotli and decoded on the way in.')));
      case '/huge':
        // 300 KB of paragraphs against a 64 KB cap: cut, not refused.
        return html(
          `<html><body>${Array.from({ length: 3000 }, (_, i) => `<p>Paragraph number ${i} of a very long page.</p>`).join('')}</body></html>`,
        );
      case '/slow':
        setTimeout(() => html(page('Late', 'too late')), 5000).unref();
        return;
      case '/text':
        return html('plain words, passed through as they are\n', 'text/plain; charset=utf-8');
      case '/readme.md':
        return html('# Title\n\nSome *Markdown* text.\n', 'text/markdown');
      case '/image.png':
        return html(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]), 'image/png');
      case '/wall':
        return html(
          '<html><head><title>Just a moment...</title></head><body><script>window._cf_chl_opt={}</script></body></html>',
          'text/html',
          403,
        );
      case '/gone':
        return html(page('Missing', 'not here'), 'text/html', 404);
      case '/broken':
        return html(page('Error', 'server error'), 'text/html', 500);
      case '/report.pdf':
        return html(
          Buffer.from(textPdf(['Quarterly report.', 'Revenue grew.'], 'Q3 Report')),
          'application/pdf',
        );
      case '/app':
        // A single-page app: nothing to read until its script runs and fetches the content.
        return html(`<!doctype html><html><head><title>App</title></head><body><div id="root"></div>
<script>fetch('/api/story').then(r => r.json()).then(s => {
  document.getElementById('root').innerHTML = '<article><h1>' + s.title + '</h1>' +
    s.paragraphs.map(p => '<p>' + p + '</p>').join('') + '</article>';
});</script></body></html>`);
      case '/api/story':
        return html(
          JSON.stringify({
            title: 'Rendered by script',
            paragraphs: Array.from(
              { length: 6 },
              (_, i) =>
                `Paragraph ${i} only exists after JavaScript runs in a real browser, which fetched it as JSON.`,
            ),
          }),
          'application/json',
        );
      case '/navigate-away':
        // Its script sends the browser to an address that does not answer: Chromium shows an error page.
        return html(`<!doctype html><html><head><title>Away</title></head><body><p>Going.</p>
<script>setTimeout(() => { location.href = 'http://127.0.0.1:1/'; }, 50);</script></body></html>`);
      case '/spin':
        // A script that never ends: the page never finishes loading and holds its render slot.
        return html(
          '<!doctype html><html><head><title>Spin</title></head><body><script>for (;;) {}</script></body></html>',
        );
      case '/cached':
        return html(page('Cached', 'This page is fetched once and then served from the cache.'));
      default:
        return html(page('Home', 'home'));
    }
  });
  t = await createTestApp({
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_FETCH_MAX_BYTES: String(64 * 1024),
    UNFURL_FETCH_TIMEOUT_MS: '1000',
    UNFURL_UPSTREAM_RETRY_BASE_MS: '10',
  });
  key = (await t.register()).apiKey;
});

afterAll(async () => {
  await t?.close();
  await site?.close();
});

const scrape = (query: string, apiKey = key) =>
  t.call(apiKey, { method: 'GET', url: `/v1/web/scrape?${query}` });
const q = (path: string, extra = '') => `url=${encodeURIComponent(site.url + path)}${extra}`;

async function balance(apiKey = key): Promise<number> {
  return (await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits;
}

describe('GET /v1/web/scrape', () => {
  it('answers the main content as Markdown with metadata, absolute links and one credit charged', async () => {
    const before = await balance();
    const res = await scrape(q('/article', '&render=never'));
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(Number(res.headers['x-credits-remaining'])).toBe(before - 1);
    const body = res.json();
    expect(body.url).toBe(`${site.url}/article`);
    expect(body.name).toBe('Tide pools of the north coast');
    expect(body.description).toBe('A field guide to the rock pools.');
    expect(body.ogUrl).toBe(`${site.url}/articles/tide-pools`);
    expect(body.ogImage).toBe(`${site.url}/img/cover.jpg`);
    // Main content: the article under its title heading, not the navigation or footer.
    expect(body.content).toMatch(/^# Tide pools of the north coast\n\nAt low tide the rock shelves/);
    expect(body.content).toContain('rock shelves of the north coast');
    expect(body.content).not.toContain('Privacy');
    expect(body.content).toContain(`[safety guide](${site.url}/guides/safety)`);
    expect(body.content).toContain('[tide table](https://tides.example.org/table)');
    expect(body.content).toContain(`![An anemone](${site.url}/img/anemone.jpg)`);
    expect(body.content).toMatch(/^## What lives there$/m);
    expect(body.content).toMatch(/\| Animal \| Zone \|\n\| --- \| --- \|\n\| Sea star \| Low \|/);
    expect(body.countCharacters).toBe([...body.content].length);
    expect(body.countCharacters).toBeLessThan(body.content.length); // the crab is one code point, two UTF-16 units
    // Every link of the page, absolute and deduplicated (the #team fragment is the same page).
    expect(body.urls).toEqual([
      `${site.url}/`,
      `${site.url}/about`,
      `${site.url}/guides/safety`,
      'https://tides.example.org/table',
      `${site.url}/privacy`,
    ]);
  });

  it('turns links into their text with noLinks, still listing them in urls', async () => {
    const body = (await scrape(q('/article', '&noLinks=true&render=never'))).json();
    expect(body.content).toContain('Read the safety guide first');
    expect(body.content).not.toMatch(/\]\(http[^)]*guides/);
    expect(body.urls).toContain(`${site.url}/guides/safety`);
  });

  it('sends lang as Accept-Language', async () => {
    await scrape(q('/', '&lang=pt-BR&render=never'));
    expect(seenHeaders.get('/')?.['accept-language']).toMatch(/^pt-BR/);
  });

  it('follows redirects and answers the final URL', async () => {
    const body = (await scrape(q('/old', '&render=never'))).json();
    expect(body.url).toBe(`${site.url}/moved/here`);
    expect(body.content).toContain('new place of this page');
  });

  it('decodes windows-1251 from the header and Shift_JIS from <meta>', async () => {
    expect((await scrape(q('/cp1251', '&render=never'))).json().content).toContain('Привет, мир');
    expect((await scrape(q('/sjis', '&render=never'))).json().content).toContain('日本語のページ');
  });

  it('decodes gzip and brotli bodies', async () => {
    expect((await scrape(q('/gzip', '&render=never'))).json().content).toContain('Compressed with gzip');
    expect((await scrape(q('/brotli', '&render=never'))).json().content).toContain('Compressed with brotli');
  });

  it('cuts a page larger than the fetch cap and converts what it got', async () => {
    const res = await scrape(q('/huge', '&render=never'));
    expect(res.statusCode).toBe(200);
    const content = res.json().content as string;
    expect(content).toContain('Paragraph number 0 ');
    expect(content).not.toContain('Paragraph number 2999 ');
  });

  it('passes plain text and Markdown through', async () => {
    expect((await scrape(q('/text'))).json().content).toBe('plain words, passed through as they are');
    expect((await scrape(q('/readme.md'))).json().content).toBe('# Title\n\nSome *Markdown* text.');
  });

  it('answers the text of a PDF as Markdown, with its title as name', async () => {
    const body = (await scrape(q('/report.pdf'))).json();
    // Two lines of the same size, close together: one paragraph.
    expect(body).toMatchObject({ content: 'Quarterly report. Revenue grew.', name: 'Q3 Report', urls: [] });
  });

  it('refuses binaries with 400 naming url, and charges nothing', async () => {
    const before = await balance();
    const res = await scrape(q('/image.png'));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_request', details: 'url' });
    expect(res.json().message).toContain('image/png');
    expect(await balance()).toBe(before);
  });

  it('reports an anti-bot wall as upstream_error, not as content, and charges nothing', async () => {
    const before = await balance();
    const res = await scrape(q('/wall', '&render=never'));
    expect(res.statusCode).toBe(502);
    expect(res.json().error).toBe('upstream_error');
    expect(res.json().message).toMatch(/anti-bot challenge \(Cloudflare\)/);
    expect(await balance()).toBe(before);
  });

  it('answers 404 for a missing page and 502 for a failing site, charging nothing', async () => {
    const before = await balance();
    const gone = await scrape(q('/gone', '&render=never'));
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error).toBe('not_found');
    const broken = await scrape(q('/broken', '&render=never'));
    expect(broken.statusCode).toBe(502);
    expect(hits.get('/broken')).toBe(2); // retried once
    expect(await balance()).toBe(before);
  });

  it('gives up on a slow site at the time limit: 502, nothing charged', async () => {
    const before = await balance();
    const started = Date.now();
    const res = await scrape(q('/slow', '&render=never'));
    expect(res.statusCode).toBe(502);
    expect(Date.now() - started).toBeLessThan(4500);
    expect(await balance()).toBe(before);
  });

  it('serves a repeated scrape from the cache (one fetch), still charging each request', async () => {
    const before = await balance();
    const a = await scrape(q('/cached', '&render=never'));
    const b = await scrape(q('/cached', '&render=never'));
    expect(a.json()).toEqual(b.json());
    expect(hits.get('/cached')).toBe(1);
    expect(await balance()).toBe(before - 2);
  });

  it('validates its parameters, naming them', async () => {
    for (const [query, param] of [
      ['', 'url'],
      ['url=not-a-url', 'url'],
      ['url=ftp%3A%2F%2Fexample.com%2F', 'url'],
      [`${q('/')}&render=sometimes`, 'render'],
      [`${q('/')}&lang=${encodeURIComponent('en;q=1, evil')}`, 'lang'],
      [`${q('/')}&noLinks=maybe`, 'noLinks'],
    ] as const) {
      const res = await scrape(query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error).toBe('invalid_request');
      expect(res.json().message, query).toContain(param);
    }
  });

  it('refuses private addresses unless the operator allows them', async () => {
    const strict = await createTestApp();
    try {
      const { apiKey } = await strict.register();
      const res = await strict.call(apiKey, { method: 'GET', url: `/v1/web/scrape?${q('/article')}` });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_request', details: 'url' });
      const before = hits.get('/article');
      await strict.call(apiKey, { method: 'GET', url: `/v1/web/scrape?${q('/article', '&noLinks=true')}` });
      expect(hits.get('/article')).toBe(before); // the refused scrapes never reached the site
    } finally {
      await strict.close();
    }
  });
});

describeWithChromium('GET /v1/web/scrape with a headless browser', () => {
  it('limits renders per account: another account is served while one is stuck, its extra render is a 429 unbilled', async () => {
    const limited = await createTestApp({
      UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
      UNFURL_BROWSER_POOL_SIZE: '2',
      UNFURL_RENDER_ACCOUNT_MAX: '1',
      UNFURL_RENDER_QUEUE_TIMEOUT_MS: '1000',
    });
    try {
      const a = await limited.register();
      const b = await limited.register();
      const call = (apiKey: string, path: string) =>
        limited.call(apiKey, { method: 'GET', url: `/v1/web/scrape?${q(path, '&render=always')}` });
      const credits = async (apiKey: string) =>
        (await limited.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits;
      const stuck = Promise.resolve(call(a.apiKey, '/spin')); // inject starts when awaited
      const deadline = Date.now() + 15_000;
      while (!hits.has('/spin')) {
        if (Date.now() > deadline) throw new Error('the stuck page was never asked for');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const movedBefore = hits.get('/moved/here') ?? 0;
      const refused = await call(a.apiKey, '/moved/here');
      expect(refused.statusCode, refused.body).toBe(429);
      expect(refused.json().error).toBe('rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(hits.get('/moved/here') ?? 0).toBe(movedBefore);
      // The stuck render's price is held while it runs; the refused one holds nothing.
      expect(await credits(a.apiKey)).toBe(99);
      const started = Date.now();
      const served = await call(b.apiKey, '/article');
      expect(served.statusCode, served.body).toBe(200);
      // Served while A's page spins (a busy machine's render takes a few seconds, not a stuck page's limit).
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(await credits(b.apiKey)).toBe(99);
      await limited.close(); // ends the stuck render (and with it A's first request, unbilled)
      expect((await stuck).statusCode).toBeGreaterThanOrEqual(500);
    } finally {
      await limited.close().catch(() => {});
    }
  }, 60_000);

  it('counts a crawl’s renders against its account too', async () => {
    const limited = await createTestApp({
      UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
      UNFURL_BROWSER_POOL_SIZE: '2',
      UNFURL_RENDER_ACCOUNT_MAX: '1',
      UNFURL_RENDER_QUEUE_TIMEOUT_MS: '1000',
      UNFURL_JOB_POLL_MS: '50',
    });
    const processing = await startJobProcessing(limited.services, quietLogger);
    try {
      const a = await limited.register();
      const b = await limited.register();
      const stuck = Promise.resolve(
        limited.call(a.apiKey, { method: 'GET', url: `/v1/web/scrape?${q('/spin', '&render=always')}` }),
      );
      const spins = hits.get('/spin') ?? 0;
      const deadline = Date.now() + 15_000;
      while ((hits.get('/spin') ?? 0) === spins) {
        if (Date.now() > deadline) throw new Error('the stuck page was never asked for');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // A crawl of a JavaScript shell renders it (render=auto): A's render finds A's share taken and
      // the crawl keeps the page as fetched; B's is rendered.
      const crawlFirstPage = async (apiKey: string) => {
        const res = await limited.call(apiKey, {
          method: 'POST',
          url: '/v1/web/crawl',
          payload: { url: `${site.url}/app`, limit: 1, maxDepth: 0 },
        });
        expect(res.statusCode, res.body).toBe(202);
        const poll = `/v1/web/crawl/${res.json().jobId}`;
        for (;;) {
          const body = (await limited.call(apiKey, { method: 'GET', url: poll })).json();
          if (body.status === 'completed' || body.status === 'failed') return body;
          if (Date.now() > deadline + 30_000) throw new Error(`crawl stuck in ${body.status}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      const ofA = await crawlFirstPage(a.apiKey);
      expect(ofA.pages[0].content).not.toContain('Rendered by script');
      const ofB = await crawlFirstPage(b.apiKey);
      expect(ofB.pages[0].content).toContain('Rendered by script');
      await processing.stop();
      await limited.close();
      await stuck;
    } finally {
      await processing.stop().catch(() => {});
      await limited.close().catch(() => {});
    }
  }, 90_000);

  it('answers 502 unbilled when the page script navigates to a page that fails, never the browser error page', async () => {
    const before = await balance();
    const res = await scrape(q('/navigate-away', '&render=always'));
    expect(res.statusCode, res.body).toBe(502);
    expect(res.json().error).toBe('upstream_error');
    expect(res.body).not.toMatch(/ERR_|chrome-error/);
    expect(await balance()).toBe(before);
  }, 60_000);

  it('renders a JavaScript-only page with render=auto, and leaves it as fetched with render=never', async () => {
    const rendered = await scrape(q('/app'));
    expect(rendered.statusCode).toBe(200);
    expect(rendered.json().name).toBe('App');
    expect(rendered.json().content).toContain('# Rendered by script');
    expect(rendered.json().content).toContain('Paragraph 5 only exists after JavaScript runs');
    const shell = (await scrape(q('/app', '&render=never'))).json();
    expect(shell.content).not.toContain('Rendered by script');
  }, 60_000);

  it('renders with render=always too, and still refuses private addresses in the browser', async () => {
    const body = (await scrape(q('/article', '&render=always'))).json();
    expect(body.content).toContain('rock shelves of the north coast');
    const strict = await createTestApp();
    try {
      const { apiKey } = await strict.register();
      const res = await strict.call(apiKey, {
        method: 'GET',
        url: `/v1/web/scrape?${q('/app', '&render=always')}`,
      });
      expect(res.statusCode).toBe(400);
    } finally {
      await strict.close();
    }
  }, 60_000);
});
