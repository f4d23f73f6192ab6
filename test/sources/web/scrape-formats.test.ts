// POST /v1/web/scrape end to end, without the browser: each format made from a loopback page, the
// part of the page read (onlyMainContent, includeTags, excludeTags), the language model's formats
// through an OpenAI-compatible stand-in, the cache's maxAge, and every option refused naming it
// with nothing charged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { type Loopback, startServer } from '../../support/loopback.js';
import { type OpenAiServer, startOpenAiServer } from '../../support/openai-server.js';
import { lockedTrailer, pdfOf, textPdf } from '../../support/pdf.js';

let site: Loopback;
let ai: OpenAiServer;
let t: TestApp;
let bare: TestApp;
const hits = new Map<string, number>();

/** A PDF of `pages` pages, each a heading and a line of text. */
const bookPdf = (pages: number) =>
  Buffer.from(
    pdfOf(
      Array.from({ length: pages }, (_, i) => ({
        ops: [
          `BT /F2 18 Tf 72 700 Td (Chapter ${i + 1}) Tj ET`,
          `BT /F1 11 Tf 72 670 Td (The text of chapter ${i + 1}, long enough to be body text of the page.) Tj ET`,
        ].join('\n'),
      })),
      'The Book',
    ),
  );
const LOCKED = Buffer.from(textPdf(['Secret.'], 'Locked', lockedTrailer()));

const ARTICLE = `<!doctype html><html lang="en-GB"><head><title>Growing tomatoes | Garden notes</title>
<meta name="description" content="How to grow tomatoes on a balcony.">
<meta property="og:image" content="/img/og.png"></head>
<body>
<nav class="menu"><a href="/">Home</a> <a href="/about">About us</a></nav>
<main><article>
<h1>Growing tomatoes</h1>
<p>Tomatoes want six hours of sun a day and a deep pot. Water them in the morning, at the roots, and
feed them every two weeks once the first flowers open. This paragraph is long enough to read as an
article, so that the main content is found where a reader would find it.</p>
<p class="aside-note">Seed catalogues list hundreds of varieties; cherry tomatoes forgive most mistakes.</p>
<p><img src="/img/plant.jpg" alt="A tomato plant"> <img srcset="/img/small.jpg 480w, /img/big.jpg 1080w" alt="">
Read the <a href="/guide/watering">watering guide</a> or the <a href="https://other.example/seeds">seed shop</a>.</p>
</article></main>
<footer>Copyright Garden notes</footer>
</body></html>`;

beforeAll(async () => {
  site = await startServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === '/article' || path === '/cached') {
      return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
    }
    if (path === '/book.pdf')
      return res.writeHead(200, { 'content-type': 'application/pdf' }).end(bookPdf(14));
    if (path === '/locked.pdf') return res.writeHead(200, { 'content-type': 'application/pdf' }).end(LOCKED);
    if (path === '/notes.txt')
      return res.writeHead(200, { 'content-type': 'text/plain' }).end('plain notes\n');
    res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>no</h1>');
  });
  ai = await startOpenAiServer();
  t = await createTestApp({
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_AI_BASE_URL: ai.baseUrl,
    UNFURL_AI_API_KEY: 'sk-test-key',
    UNFURL_SCRAPE_CACHE_TTL_SECONDS: '600',
  });
  bare = await createTestApp({ UNFURL_ALLOW_PRIVATE_NETWORK: 'true' });
});

afterAll(async () => {
  await t?.close();
  await bare?.close();
  await ai?.close();
  await site?.close();
});

const scrape = (app: TestApp, key: string, body: Record<string, unknown>) =>
  app.call(key, { method: 'POST', url: '/v1/web/scrape', payload: body });

const credits = async (app: TestApp, key: string) =>
  (await app.call(key, { method: 'GET', url: '/v1/account' })).json().credits as number;

describe('POST /v1/web/scrape', () => {
  it('answers each format asked for, and only those, for 1 credit', async () => {
    const { apiKey } = await t.register();
    const res = await scrape(t, apiKey, {
      url: `${site.url}/article`,
      formats: ['markdown', 'html', 'rawHtml', 'links', 'images'],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-credits-charged']).toBe('1');
    const doc = res.json();
    expect(doc.url).toBe(`${site.url}/article`);
    expect(doc.markdown).toMatch(/^# Growing tomatoes\n/);
    expect(doc.markdown).toContain('six hours of sun');
    expect(doc.markdown).not.toContain('About us');
    expect(doc.html).toContain('<p>Tomatoes want six hours');
    expect(doc.html).not.toContain('<nav');
    expect(doc.rawHtml).toBe(ARTICLE);
    expect(doc.links).toEqual([
      { url: `${site.url}/`, text: 'Home', internal: true },
      { url: `${site.url}/about`, text: 'About us', internal: true },
      { url: `${site.url}/guide/watering`, text: 'watering guide', internal: true },
      { url: 'https://other.example/seeds', text: 'seed shop', internal: false },
    ]);
    expect(doc.images).toEqual([
      { url: `${site.url}/img/plant.jpg`, alt: 'A tomato plant' },
      { url: `${site.url}/img/big.jpg`, alt: null },
    ]);
    expect(doc.metadata).toMatchObject({
      title: 'Growing tomatoes | Garden notes',
      description: 'How to grow tomatoes on a balcony.',
      language: 'en-GB',
      ogImage: `${site.url}/img/og.png`,
      sourceURL: `${site.url}/article`,
      url: `${site.url}/article`,
      statusCode: 200,
      cacheState: 'miss',
    });
    expect(Number.isNaN(Date.parse(doc.metadata.cachedAt))).toBe(false);
    expect(doc).not.toHaveProperty('screenshot');
    expect(doc).not.toHaveProperty('json');

    const only = (await scrape(t, apiKey, { url: `${site.url}/article`, formats: ['links'] })).json();
    expect(only).not.toHaveProperty('markdown');
    expect(only.links).toHaveLength(4);
    expect(await credits(t, apiKey)).toBe(98);
  });

  it('reads the part of the page asked for: the whole page, only some tags, without others', async () => {
    const { apiKey } = await t.register();
    const whole = (await scrape(t, apiKey, { url: `${site.url}/article`, onlyMainContent: false })).json();
    expect(whole.markdown).toContain('About us');
    expect(whole.markdown).toContain('Copyright Garden notes');

    const some = (
      await scrape(t, apiKey, { url: `${site.url}/article`, includeTags: ['p.aside-note', 'footer'] })
    ).json();
    expect(some.markdown).toContain('cherry tomatoes forgive');
    expect(some.markdown).not.toContain('six hours of sun');

    const without = (
      await scrape(t, apiKey, { url: `${site.url}/article`, excludeTags: ['.aside-note'], formats: ['html'] })
    ).json();
    expect(without.html).toContain('six hours of sun');
    expect(without.html).not.toContain('cherry tomatoes');
  });

  it('serves a cached answer as young as maxAge allows, at the price it cost', async () => {
    const { apiKey } = await t.register();
    const body = { url: `${site.url}/cached`, formats: ['markdown', 'links'] };
    const first = await scrape(t, apiKey, body);
    expect(first.json().metadata.cacheState).toBe('miss');
    const fetched = hits.get('/cached');
    const again = await scrape(t, apiKey, body);
    expect(again.json().metadata.cacheState).toBe('hit');
    expect(again.json().metadata.cachedAt).toBe(first.json().metadata.cachedAt);
    expect(again.headers['x-credits-charged']).toBe('1');
    expect(hits.get('/cached')).toBe(fetched);
    const fresh = await scrape(t, apiKey, { ...body, maxAge: 0 });
    expect(fresh.json().metadata.cacheState).toBe('miss');
    expect(hits.get('/cached')).toBe(fetched! + 1);
  });

  it('asks the language model for json (by schema or prompt) and a summary, 2 credits each', async () => {
    const { apiKey } = await t.register();
    ai.chat = (call) => {
      if (call.body.response_format?.type === 'json_schema')
        return JSON.stringify({ plant: 'tomato', hours: 6 });
      if (call.body.response_format?.type === 'json_object')
        return JSON.stringify({ answer: 'water at the roots' });
      return 'A short guide to growing tomatoes on a balcony.';
    };
    const schema = {
      type: 'object',
      properties: { plant: { type: 'string' }, hours: { type: 'integer' } },
      required: ['plant', 'hours'],
      additionalProperties: false,
    };
    const res = await scrape(t, apiKey, {
      url: `${site.url}/article`,
      formats: [{ type: 'json', schema, prompt: 'What plant, and how many hours of sun?' }, 'summary'],
    });
    expect(res.statusCode, res.body).toBe(200);
    const doc = res.json();
    expect(doc.json).toEqual({ plant: 'tomato', hours: 6 });
    expect(doc.summary).toBe('A short guide to growing tomatoes on a balcony.');
    expect(doc).not.toHaveProperty('markdown');
    expect(res.headers['x-credits-charged']).toBe('5');
    const asked = ai.chats.at(-1)!.text + ai.chats.at(-2)!.text;
    expect(asked).toContain('six hours of sun');
    expect(asked).toContain('What plant, and how many hours of sun?');

    const prompted = await scrape(t, apiKey, {
      url: `${site.url}/article`,
      formats: [{ type: 'json', prompt: 'How should I water?' }],
    });
    expect(prompted.json().json).toEqual({ answer: 'water at the roots' });
    expect(prompted.headers['x-credits-charged']).toBe('3');
  });

  it('a model that fails leaves a warning and the rest of the answer, that part unbilled', async () => {
    const { apiKey } = await t.register();
    ai.chat = () => ({ status: 400, body: JSON.stringify({ error: { message: 'context too long' } }) });
    const res = await scrape(t, apiKey, { url: `${site.url}/article`, formats: ['markdown', 'summary'] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().markdown).toContain('six hours');
    expect(res.json()).not.toHaveProperty('summary');
    expect(res.json().warning).toMatch(/^Not made: summary: /);
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(await credits(t, apiKey)).toBe(99);
  });

  it('without a language model configured, json and summary are 503 naming the setting, nothing charged', async () => {
    const { apiKey } = await bare.register();
    const res = await scrape(bare, apiKey, { url: `${site.url}/article`, formats: ['summary'] });
    expect(res.statusCode).toBe(503);
    expect(res.json().error).toBe('provider_unavailable');
    expect(res.json().message).toContain('UNFURL_AI_BASE_URL');
    expect(await credits(bare, apiKey)).toBe(100);
  });

  it('reads a PDF as Markdown: the first 10 pages free, each page past them 1 credit, as maxPages allows', async () => {
    const { apiKey } = await t.register();
    const few = await scrape(t, apiKey, { url: `${site.url}/book.pdf` });
    expect(few.statusCode, few.body).toBe(200);
    expect(few.headers['x-credits-charged']).toBe('1');
    expect(few.json().markdown).toMatch(/^# Chapter 1\n\nThe text of chapter 1,/);
    expect(few.json().markdown).toContain('Chapter 10');
    expect(few.json().markdown).not.toContain('Chapter 11');
    expect(few.json().metadata).toMatchObject({
      title: 'The Book',
      pdfPages: { total: 14, read: 10, ocr: 0 },
    });

    const all = await scrape(t, apiKey, { url: `${site.url}/book.pdf`, maxPages: 50, pdfMode: 'text' });
    expect(all.json().metadata.pdfPages).toEqual({ total: 14, read: 14, ocr: 0 });
    expect(all.json().markdown).toContain('Chapter 14');
    // 1 + the 4 pages past the first 10 (50 may be read, 1 + 40 was held).
    expect(all.headers['x-credits-charged']).toBe('5');
    expect(await credits(t, apiKey)).toBe(100 - 1 - 5);
  });

  it('refuses an encrypted PDF with 400 naming url, charging nothing', async () => {
    const { apiKey } = await t.register();
    const res = await scrape(t, apiKey, { url: `${site.url}/locked.pdf` });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().message).toMatch(/^Invalid parameter 'url': the PDF is encrypted/);
    expect(await credits(t, apiKey)).toBe(100);
  });

  it('answers a text document as its text', async () => {
    const { apiKey } = await t.register();
    const doc = (await scrape(t, apiKey, { url: `${site.url}/notes.txt`, formats: ['markdown'] })).json();
    expect(doc.markdown).toBe('plain notes');
    expect(doc.metadata.statusCode).toBe(200);
  });

  it('refuses each bad option with 400 naming it, and charges nothing', async () => {
    const { apiKey } = await t.register();
    const url = `${site.url}/article`;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ url, formats: ['markdown', 'pdf'] }, 'formats'],
      [{ url, formats: [] }, 'formats'],
      [{ url, formats: ['json'] }, 'formats[0]'],
      [{ url, formats: [{ type: 'json' }] }, 'formats[0]'],
      [{ url, formats: [{ type: 'json', schema: { type: 'object', properties: 5 } }] }, 'formats[0].schema'],
      [{ url, formats: [{ type: 'json', schema: 'not a schema' }] }, 'formats[0].schema'],
      [{ url, formats: ['markdown', 'markdown'] }, 'formats[1]'],
      [{ url, includeTags: ['div[unclosed'] }, 'includeTags[0]'],
      [{ url, excludeTags: ['p', '>>>'] }, 'excludeTags[1]'],
      [{ url, waitFor: 40_000, timeout: 60_000 }, 'waitFor'],
      [{ url, timeout: 10 }, 'timeout'],
      [{ url, maxAge: -1 }, 'maxAge'],
      [{ url, maxPages: 0 }, 'maxPages'],
      [{ url, pdfMode: 'magic' }, 'pdfMode'],
      [{ url, render: 'never', formats: ['screenshot'] }, 'render'],
      [{ url, unknownOption: true }, 'unknownOption'],
      [{ url: 'ftp://example.com/x' }, 'url'],
    ];
    for (const [body, param] of cases) {
      const res = await scrape(t, apiKey, body);
      expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).toBe(400);
      expect(res.json().error).toBe('invalid_request');
      // The parameter, or the item of it at fault (the schema's `formats.1`).
      expect(res.json().message, JSON.stringify(body)).toMatch(
        new RegExp(`'${param.replace(/[[\].]/g, '\\$&')}[.'\\d]`),
      );
    }
    expect(await credits(t, apiKey)).toBe(100);
  });
});
